package validation

import (
	"path"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const podFileModeErrorMsg = "must be a number between 0 and 0777 (octal), both inclusive"

// validatePodVolumes checks volume names (DNS labels, unique) and sources
// (exactly one, with its required fields). It returns the volumes that
// passed, which volume mounts may reference.
func validatePodVolumes(volumes []corev1.Volume, fldPath *field.Path) (map[string]corev1.VolumeSource, field.ErrorList) {
	var allErrs field.ErrorList
	valid := map[string]corev1.VolumeSource{}
	names := sets.New[string]()
	for i := range volumes {
		v := &volumes[i]
		idxPath := fldPath.Index(i)
		namePath := idxPath.Child("name")
		errs := validatePodVolumeSource(&v.VolumeSource, idxPath)
		if v.Name == "" {
			errs = append(errs, field.Required(namePath, ""))
		} else {
			for _, msg := range utilvalidation.IsDNS1123Label(v.Name) {
				errs = append(errs, field.Invalid(namePath, v.Name, msg))
			}
		}
		if names.Has(v.Name) {
			errs = append(errs, field.Duplicate(namePath, v.Name))
		}
		if len(errs) == 0 {
			names.Insert(v.Name)
			valid[v.Name] = v.VolumeSource
		}
		allErrs = append(allErrs, errs...)
	}
	return valid, allErrs
}

// validatePodVolumeSource: exactly one source, then that source's rules.
func validatePodVolumeSource(src *corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	v, t := reflect.ValueOf(src).Elem(), reflect.TypeOf(*src)
	first := ""
	for i := range t.NumField() {
		if f := v.Field(i); f.Kind() != reflect.Pointer || f.IsNil() {
			continue
		}
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if first != "" {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(name), "may not specify more than 1 volume type"))
			continue
		}
		first = name
	}
	if first == "" {
		return field.ErrorList{field.Required(fldPath, "must specify a volume type")}
	}
	p := fldPath.Child(first)
	switch {
	case src.HostPath != nil:
		allErrs = append(allErrs, validatePodHostPath(src.HostPath, p)...)
	case src.EmptyDir != nil:
		if l := src.EmptyDir.SizeLimit; l != nil && l.Sign() < 0 {
			allErrs = append(allErrs, field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"))
		}
	case src.Secret != nil:
		if src.Secret.SecretName == "" {
			allErrs = append(allErrs, field.Required(p.Child("secretName"), ""))
		}
		allErrs = append(allErrs, validatePodFileMode(src.Secret.DefaultMode, p.Child("defaultMode"))...)
		allErrs = append(allErrs, validatePodKeyToPaths(src.Secret.Items, p.Child("items"))...)
	case src.ConfigMap != nil:
		if src.ConfigMap.Name == "" {
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		}
		allErrs = append(allErrs, validatePodFileMode(src.ConfigMap.DefaultMode, p.Child("defaultMode"))...)
		allErrs = append(allErrs, validatePodKeyToPaths(src.ConfigMap.Items, p.Child("items"))...)
	case src.PersistentVolumeClaim != nil:
		if src.PersistentVolumeClaim.ClaimName == "" {
			allErrs = append(allErrs, field.Required(p.Child("claimName"), ""))
		}
	case src.DownwardAPI != nil:
		allErrs = append(allErrs, validatePodFileMode(src.DownwardAPI.DefaultMode, p.Child("defaultMode"))...)
		allErrs = append(allErrs, validatePodDownwardAPIFiles(src.DownwardAPI.Items, p.Child("items"))...)
	case src.Projected != nil:
		allErrs = append(allErrs, validatePodProjected(src.Projected, p)...)
	case src.NFS != nil:
		if src.NFS.Server == "" {
			allErrs = append(allErrs, field.Required(p.Child("server"), ""))
		}
		if src.NFS.Path == "" {
			allErrs = append(allErrs, field.Required(p.Child("path"), ""))
		} else if !path.IsAbs(src.NFS.Path) {
			allErrs = append(allErrs, field.Invalid(p.Child("path"), src.NFS.Path, "must be an absolute path"))
		}
	case src.CSI != nil:
		if src.CSI.Driver == "" {
			allErrs = append(allErrs, field.Required(p.Child("driver"), ""))
		}
	case src.Ephemeral != nil:
		if src.Ephemeral.VolumeClaimTemplate == nil {
			allErrs = append(allErrs, field.Required(p.Child("volumeClaimTemplate"), ""))
		}
	case src.Image != nil:
		if src.Image.Reference == "" {
			allErrs = append(allErrs, field.Required(p.Child("reference"), ""))
		}
	}
	return allErrs
}

var podHostPathTypes = []corev1.HostPathType{
	corev1.HostPathUnset, corev1.HostPathDirectoryOrCreate, corev1.HostPathDirectory, corev1.HostPathFileOrCreate,
	corev1.HostPathFile, corev1.HostPathSocket, corev1.HostPathCharDev, corev1.HostPathBlockDev,
}

func validatePodHostPath(hp *corev1.HostPathVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if hp.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	} else if podHasBacksteps(hp.Path) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("path"), hp.Path, "must not contain '..'"))
	}
	if hp.Type != nil {
		known := false
		for _, t := range podHostPathTypes {
			known = known || *hp.Type == t
		}
		if !known {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), *hp.Type, podHostPathTypes))
		}
	}
	return allErrs
}

func validatePodFileMode(mode *int32, fldPath *field.Path) field.ErrorList {
	if mode != nil && (*mode > 0o777 || *mode < 0) {
		return field.ErrorList{field.Invalid(fldPath, *mode, podFileModeErrorMsg)}
	}
	return nil
}

func validatePodKeyToPaths(items []corev1.KeyToPath, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, kp := range items {
		p := fldPath.Index(i)
		if kp.Key == "" {
			allErrs = append(allErrs, field.Required(p.Child("key"), ""))
		}
		allErrs = append(allErrs, validatePodRelativePath(kp.Path, p.Child("path"))...)
		allErrs = append(allErrs, validatePodFileMode(kp.Mode, p.Child("mode"))...)
	}
	return allErrs
}

func validatePodDownwardAPIFiles(items []corev1.DownwardAPIVolumeFile, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, f := range items {
		p := fldPath.Index(i)
		allErrs = append(allErrs, validatePodRelativePath(f.Path, p.Child("path"))...)
		allErrs = append(allErrs, validatePodFileMode(f.Mode, p.Child("mode"))...)
		switch {
		case f.FieldRef != nil && f.ResourceFieldRef != nil:
			allErrs = append(allErrs, field.Invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		case f.FieldRef != nil:
			allErrs = append(allErrs, validatePodFieldRef(f.FieldRef, podVolumeFieldPaths, p.Child("fieldRef"))...)
		case f.ResourceFieldRef != nil:
			allErrs = append(allErrs, validatePodResourceFieldRef(f.ResourceFieldRef, p.Child("resourceFieldRef"))...)
		default:
			allErrs = append(allErrs, field.Required(p, "one of fieldRef and resourceFieldRef is required"))
		}
	}
	return allErrs
}

func validatePodProjected(pv *corev1.ProjectedVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := validatePodFileMode(pv.DefaultMode, fldPath.Child("defaultMode"))
	paths := &projectedPaths{seen: sets.New[string](), fldPath: fldPath}
	for i, s := range pv.Sources {
		p := fldPath.Child("sources").Index(i)
		count := 0
		if s.Secret != nil {
			count++
			allErrs = append(allErrs, validatePodKeyToPaths(s.Secret.Items, p.Child("secret", "items"))...)
			for _, kp := range s.Secret.Items {
				allErrs = append(allErrs, paths.add(kp.Path, s.Secret.Name)...)
			}
		}
		if s.ConfigMap != nil {
			count++
			allErrs = append(allErrs, validatePodKeyToPaths(s.ConfigMap.Items, p.Child("configMap", "items"))...)
			for _, kp := range s.ConfigMap.Items {
				allErrs = append(allErrs, paths.add(kp.Path, s.ConfigMap.Name)...)
			}
		}
		if s.DownwardAPI != nil {
			count++
			allErrs = append(allErrs, validatePodDownwardAPIFiles(s.DownwardAPI.Items, p.Child("downwardAPI", "items"))...)
			for _, f := range s.DownwardAPI.Items {
				allErrs = append(allErrs, paths.add(f.Path, f.Path)...)
			}
		}
		if s.ServiceAccountToken != nil {
			count++
			allErrs = append(allErrs, validatePodTokenProjection(s.ServiceAccountToken, p.Child("serviceAccountToken"))...)
		}
		if s.ClusterTrustBundle != nil {
			count++
			allErrs = append(allErrs, validatePodClusterTrustBundleProjection(s.ClusterTrustBundle, paths, p.Child("clusterTrustBundle"))...)
		}
		if s.PodCertificate != nil {
			count++
			allErrs = append(allErrs, validatePodCertificateProjection(s.PodCertificate, paths, p.Child("podCertificate"))...)
		}
		if count > 1 {
			allErrs = append(allErrs, field.Forbidden(p, "may not specify more than 1 volume type per source"))
		}
	}
	return allErrs
}

func validatePodTokenProjection(t *corev1.ServiceAccountTokenProjection, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if t.ExpirationSeconds != nil {
		switch s := *t.ExpirationSeconds; {
		case s < 10*60:
			allErrs = append(allErrs, field.Invalid(fldPath.Child("expirationSeconds"), s, "may not specify a duration less than 10 minutes"))
		case s > 1<<32:
			allErrs = append(allErrs, field.Invalid(fldPath.Child("expirationSeconds"), s, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	if t.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	}
	return allErrs
}

// validatePodRelativePath: a file path inside a volume: relative, no
// '..' element.
func validatePodRelativePath(p string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if p == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if path.IsAbs(p) {
		allErrs = append(allErrs, field.Invalid(fldPath, p, "must be a relative path"))
	}
	if podHasBacksteps(p) {
		allErrs = append(allErrs, field.Invalid(fldPath, p, "must not contain '..'"))
	}
	if strings.HasPrefix(p, "..") {
		allErrs = append(allErrs, field.Invalid(fldPath, p, "must not start with '..'"))
	}
	return allErrs
}

func podHasBacksteps(p string) bool {
	for _, part := range strings.Split(strings.ReplaceAll(p, `\`, "/"), "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// validatePodVolumeMounts checks that each mount names a valid volume of
// the pod ("Not found" otherwise) and has a unique mount path.
func validatePodVolumeMounts(mounts []corev1.VolumeMount, volumes map[string]corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	paths := sets.New[string]()
	for i, m := range mounts {
		p := fldPath.Index(i)
		if m.Name == "" {
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		}
		if _, ok := volumes[m.Name]; !ok {
			allErrs = append(allErrs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			allErrs = append(allErrs, field.Required(p.Child("mountPath"), ""))
		}
		if paths.Has(m.MountPath) {
			allErrs = append(allErrs, field.Invalid(p.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths.Insert(m.MountPath)
		if m.SubPath != "" {
			allErrs = append(allErrs, validatePodSubPath(m.SubPath, fldPath.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				allErrs = append(allErrs, field.Invalid(p.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			allErrs = append(allErrs, validatePodSubPath(m.SubPathExpr, fldPath.Child("subPathExpr"))...)
		}
		if m.MountPropagation != nil {
			switch *m.MountPropagation {
			case corev1.MountPropagationNone, corev1.MountPropagationHostToContainer, corev1.MountPropagationBidirectional:
			default:
				allErrs = append(allErrs, field.NotSupported(fldPath.Child("mountPropagation"), *m.MountPropagation, []corev1.MountPropagationMode{
					corev1.MountPropagationBidirectional, corev1.MountPropagationHostToContainer, corev1.MountPropagationNone}))
			}
		}
		allErrs = append(allErrs, validateMountRecursiveReadOnly(m, p.Child("recursiveReadOnly"))...)
	}
	return allErrs
}

// validateMountRecursiveReadOnly: a recursively read-only mount must be
// read-only and must not propagate mounts.
func validateMountRecursiveReadOnly(m corev1.VolumeMount, fldPath *field.Path) field.ErrorList {
	if m.RecursiveReadOnly == nil {
		return nil
	}
	var allErrs field.ErrorList
	switch *m.RecursiveReadOnly {
	case corev1.RecursiveReadOnlyDisabled:
	case corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible:
		if !m.ReadOnly {
			allErrs = append(allErrs, field.Forbidden(fldPath, "may only be specified when readOnly is true"))
		}
		if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
			allErrs = append(allErrs, field.Forbidden(fldPath, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath, *m.RecursiveReadOnly, []corev1.RecursiveReadOnlyMode{
			corev1.RecursiveReadOnlyDisabled, corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible}))
	}
	return allErrs
}

// validatePodSubPath: relative and without '..' (upstream reports these at
// the list's path, not the item's).
func validatePodSubPath(p string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if path.IsAbs(p) {
		allErrs = append(allErrs, field.Invalid(fldPath, p, "must be a relative path"))
	}
	if podHasBacksteps(p) {
		allErrs = append(allErrs, field.Invalid(fldPath, p, "must not contain '..'"))
	}
	return allErrs
}
