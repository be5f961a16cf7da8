package validation

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	supportedAccessModes     = sets.New(corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOncePod)
	supportedReclaimPolicies = sets.New(corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRecycle,
		corev1.PersistentVolumeReclaimRetain)
	supportedVolumeModes   = sets.New(corev1.PersistentVolumeBlock, corev1.PersistentVolumeFilesystem)
	supportedHostPathTypes = sets.New(corev1.HostPathUnset, corev1.HostPathDirectoryOrCreate, corev1.HostPathDirectory,
		corev1.HostPathFileOrCreate, corev1.HostPathFile, corev1.HostPathSocket, corev1.HostPathCharDev, corev1.HostPathBlockDev)
)

// ValidatePersistentVolume checks a persistent volume.
func ValidatePersistentVolume(pv *corev1.PersistentVolume) field.ErrorList {
	allErrs := ValidateObjectMeta(&pv.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, validatePersistentVolumeSpec(&pv.Spec, field.NewPath("spec"))...)
}

// ValidatePersistentVolumeUpdate checks an update: the volume source and
// volumeMode are immutable, node affinity may only be added, and a
// volumeAttributesClassName may not be removed.
func ValidatePersistentVolumeUpdate(pv, old *corev1.PersistentVolume) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidatePersistentVolume(pv)...)
	// A CSI volume may gain a controllerExpandSecretRef.
	if old.Spec.CSI != nil && old.Spec.CSI.ControllerExpandSecretRef == nil && pv.Spec.CSI != nil && pv.Spec.CSI.ControllerExpandSecretRef != nil {
		pv = pv.DeepCopy()
		pv.Spec.CSI.ControllerExpandSecretRef = nil
	}
	if !equality.Semantic.DeepEqual(pv.Spec.PersistentVolumeSource, old.Spec.PersistentVolumeSource) {
		diff := cmp.Diff(old.Spec.PersistentVolumeSource, pv.Spec.PersistentVolumeSource)
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), fmt.Sprintf("spec.persistentvolumesource is immutable after creation\n%v", diff)))
	}
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(pv.Spec.VolumeMode, old.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	if old.Spec.NodeAffinity != nil && !equality.Semantic.DeepEqual(pv.Spec.NodeAffinity, old.Spec.NodeAffinity) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("nodeAffinity"), pv.Spec.NodeAffinity, apimachineryvalidation.FieldImmutableErrorMsg+", except for updating from beta label to GA"))
	}
	if old.Spec.VolumeAttributesClassName != nil && pv.Spec.VolumeAttributesClassName == nil {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
	}
	return allErrs
}

// ValidatePersistentVolumeStatusUpdate checks a write of
// persistentvolumes/status.
func ValidatePersistentVolumeStatusUpdate(pv, old *corev1.PersistentVolume) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if pv.ResourceVersion == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	return allErrs
}

func validatePersistentVolumeSpec(spec *corev1.PersistentVolumeSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateAccessModes(spec.AccessModes, fldPath.Child("accessModes"), "")
	capPath := fldPath.Child("capacity")
	if len(spec.Capacity) == 0 {
		allErrs = append(allErrs, field.Required(capPath, ""))
	}
	if _, ok := spec.Capacity[corev1.ResourceStorage]; !ok || len(spec.Capacity) > 1 {
		allErrs = append(allErrs, field.NotSupported(capPath, spec.Capacity, []corev1.ResourceName{corev1.ResourceStorage}))
	}
	for name, q := range spec.Capacity {
		allErrs = append(allErrs, checkBasicQuantity(q, capPath.Key(string(name)))...)
		allErrs = append(allErrs, checkPositiveQuantity(q, capPath.Key(string(name)))...)
	}
	if p := spec.PersistentVolumeReclaimPolicy; p != "" && !supportedReclaimPolicies.Has(p) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("persistentVolumeReclaimPolicy"), p, sets.List(supportedReclaimPolicies)))
	}
	hasNodeAffinity := false
	if spec.NodeAffinity != nil {
		var errs field.ErrorList
		hasNodeAffinity, errs = validateVolumeNodeAffinity(spec.NodeAffinity, fldPath.Child("nodeAffinity"))
		allErrs = append(allErrs, errs...)
	}
	allErrs = append(allErrs, validatePersistentVolumeSource(&spec.PersistentVolumeSource, hasNodeAffinity, fldPath)...)
	if spec.HostPath != nil && path.Clean(spec.HostPath.Path) == "/" && spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if spec.StorageClassName != "" {
		allErrs = append(allErrs, validateClassName(spec.StorageClassName, fldPath.Child("storageClassName"))...)
	}
	if spec.VolumeMode != nil && !supportedVolumeModes.Has(*spec.VolumeMode) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeMode"), *spec.VolumeMode, sets.List(supportedVolumeModes)))
	}
	if spec.VolumeAttributesClassName != nil {
		vacPath := fldPath.Child("volumeAttributesClassName")
		if *spec.VolumeAttributesClassName == "" {
			allErrs = append(allErrs, field.Required(vacPath, "an empty string is disallowed"))
		} else {
			allErrs = append(allErrs, validateClassName(*spec.VolumeAttributesClassName, vacPath)...)
		}
		if spec.CSI == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("csi"), "has to be specified when using volumeAttributesClassName"))
		}
	}
	return allErrs
}

// validateAccessModes: at least one, each known, ReadWriteOncePod alone.
// requiredMsg is the Required detail, which differs between PVs and PVCs.
func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, fldPath *field.Path, requiredMsg string) field.ErrorList {
	var allErrs field.ErrorList
	if len(modes) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, requiredMsg))
	}
	rwop, other := false, false
	for _, mode := range modes {
		switch {
		case !supportedAccessModes.Has(mode):
			allErrs = append(allErrs, field.NotSupported(fldPath, mode, sets.List(supportedAccessModes)))
		case mode == corev1.ReadWriteOncePod:
			rwop = true
		default:
			other = true
		}
	}
	if rwop && other {
		allErrs = append(allErrs, field.Forbidden(fldPath, "may not use ReadWriteOncePod with other access modes"))
	}
	return allErrs
}

func validateClassName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// validateVolumeNodeAffinity requires required node selector terms; it
// says whether there are any.
func validateVolumeNodeAffinity(na *corev1.VolumeNodeAffinity, fldPath *field.Path) (bool, field.ErrorList) {
	if na.Required == nil {
		return true, field.ErrorList{field.Required(fldPath.Child("required"), "must specify required node constraints")}
	}
	termsPath := fldPath.Child("required", "nodeSelectorTerms")
	if len(na.Required.NodeSelectorTerms) == 0 {
		return true, field.ErrorList{field.Required(termsPath, "must have at least one node selector term")}
	}
	return true, nil
}

// pvSource is one volume type of a PersistentVolumeSource: its JSON name
// and its own checks.
type pvSource struct {
	name  string
	set   bool
	check func() field.ErrorList
}

// validatePersistentVolumeSource requires exactly one volume type and
// checks the required fields of the common ones.
func validatePersistentVolumeSource(src *corev1.PersistentVolumeSource, hasNodeAffinity bool, fldPath *field.Path) field.ErrorList {
	none := func() field.ErrorList { return nil }
	sources := []pvSource{
		{"hostPath", src.HostPath != nil, func() field.ErrorList { return validateHostPathPV(src.HostPath, fldPath.Child("hostPath")) }},
		{"gcePersistentDisk", src.GCEPersistentDisk != nil, none},
		{"awsElasticBlockStore", src.AWSElasticBlockStore != nil, none},
		{"glusterfs", src.Glusterfs != nil, none},
		{"flocker", src.Flocker != nil, none},
		{"nfs", src.NFS != nil, func() field.ErrorList { return validateNFSPV(src.NFS, fldPath.Child("nfs")) }},
		{"rbd", src.RBD != nil, none},
		{"quobyte", src.Quobyte != nil, none},
		{"cephFS", src.CephFS != nil, none},
		{"iscsi", src.ISCSI != nil, none},
		{"cinder", src.Cinder != nil, none},
		{"fc", src.FC != nil, none},
		{"flexVolume", src.FlexVolume != nil, none},
		{"azureFile", src.AzureFile != nil, none},
		{"vsphereVolume", src.VsphereVolume != nil, none},
		{"photonPersistentDisk", src.PhotonPersistentDisk != nil, none},
		{"portworxVolume", src.PortworxVolume != nil, none},
		{"azureDisk", src.AzureDisk != nil, none},
		{"scaleIO", src.ScaleIO != nil, none},
		{"local", src.Local != nil, func() field.ErrorList { return validateLocalPV(src.Local, hasNodeAffinity, fldPath) }},
		{"storageos", src.StorageOS != nil, none},
		{"csi", src.CSI != nil, func() field.ErrorList { return validateCSIPV(src.CSI, fldPath.Child("csi")) }},
	}
	var allErrs field.ErrorList
	count := 0
	for _, s := range sources {
		if !s.set {
			continue
		}
		// Upstream counts flexVolume without complaining about a second
		// type; the other types after the first are forbidden.
		if count > 0 && s.name != "flexVolume" {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(s.name), "may not specify more than 1 volume type"))
			continue
		}
		count++
		allErrs = append(allErrs, s.check()...)
	}
	if count == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a volume type"))
	}
	return allErrs
}

func validateHostPathPV(hp *corev1.HostPathVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if hp.Path == "" {
		return append(allErrs, field.Required(fldPath.Child("path"), ""))
	}
	allErrs = append(allErrs, validateNoBacksteps(hp.Path, fldPath.Child("path"))...)
	if hp.Type != nil && !supportedHostPathTypes.Has(*hp.Type) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), *hp.Type, sets.List(supportedHostPathTypes)))
	}
	return allErrs
}

func validateNFSPV(nfs *corev1.NFSVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if nfs.Server == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("server"), ""))
	}
	if nfs.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	} else if !path.IsAbs(nfs.Path) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("path"), nfs.Path, "must be an absolute path"))
	}
	return allErrs
}

// validateLocalPV: a path without "..", and node affinity.
func validateLocalPV(local *corev1.LocalVolumeSource, hasNodeAffinity bool, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	fldPath := specPath.Child("local")
	if local.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	} else {
		allErrs = append(allErrs, validateNoBacksteps(local.Path, fldPath.Child("path"))...)
	}
	if !hasNodeAffinity {
		allErrs = append(allErrs, field.Required(specPath.Child("nodeAffinity"), "Local volume requires node affinity"))
	}
	return allErrs
}

func validateCSIPV(csi *corev1.CSIPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	driverPath := fldPath.Child("driver")
	if csi.Driver == "" {
		allErrs = append(allErrs, field.Required(driverPath, ""))
	}
	if len(csi.Driver) > 63 {
		allErrs = append(allErrs, field.TooLong(driverPath, "", 63))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(csi.Driver)) {
		allErrs = append(allErrs, field.Invalid(driverPath, csi.Driver, msg))
	}
	if csi.VolumeHandle == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeHandle"), ""))
	}
	return allErrs
}

// validateNoBacksteps rejects a path with a ".." element.
func validateNoBacksteps(p string, fldPath *field.Path) field.ErrorList {
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return field.ErrorList{field.Invalid(fldPath, p, "must not contain '..'")}
		}
	}
	return nil
}
