// Package defaultstorageclass is the DefaultStorageClass admission
// plugin: a PersistentVolumeClaim created without a storage class gets
// the cluster's default one (annotated
// storageclass.kubernetes.io/is-default-class: "true"); with several
// defaults, the newest wins, as upstream.
package defaultstorageclass

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	storagelisters "k8s.io/client-go/listers/storage/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/admission/plugins/readiness"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "DefaultStorageClass"

// The annotations that mark a default class.
const (
	IsDefaultAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaIsDefaultAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// Plugin defaults claims' storage class.
type Plugin struct {
	classes storagelisters.StorageClassLister
	// Synced, when set, tells whether the classes' cache has listed; a
	// request waits for it as upstream's do.
	Synced func() bool
}

var _ admission.MutationInterface = (*Plugin)(nil)

// New reads storage classes from classes.
func New(classes storagelisters.StorageClassLister) *Plugin { return &Plugin{classes: classes} }

// Admit sets spec.storageClassName of a new claim that names no class
// (neither the field, even empty, nor the beta annotation).
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Resource.GroupResource() != (corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims").GroupResource()) || a.Subresource != "" {
		return nil
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	if _, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok || pvc.Spec.StorageClassName != nil {
		return nil
	}
	if err := readiness.Wait(ctx, a, p.Synced); err != nil {
		return err
	}
	def, err := DefaultClass(p.classes)
	if err != nil {
		return forbidden.New(a, err)
	}
	if def != nil {
		name := def.Name
		pvc.Spec.StorageClassName = &name
	}
	return nil
}

// DefaultClass is the newest class marked default (by name when created
// at the same time), or nil.
func DefaultClass(lister storagelisters.StorageClassLister) (*storagev1.StorageClass, error) {
	list, err := lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var defaults []*storagev1.StorageClass
	for _, c := range list {
		if c.Annotations[IsDefaultAnnotation] == "true" || c.Annotations[BetaIsDefaultAnnotation] == "true" {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return nil, nil
	}
	sort.Slice(defaults, func(i, j int) bool {
		ti, tj := defaults[i].CreationTimestamp.UnixNano(), defaults[j].CreationTimestamp.UnixNano()
		if ti == tj {
			return defaults[i].Name < defaults[j].Name
		}
		return ti > tj
	})
	return defaults[0], nil
}
