// Package scale serves the <resource>/scale subresource (autoscaling/v1
// Scale) over the store of a parent resource with a replica count:
// deployments, replicasets, statefulsets, replicationcontrollers. Reading
// builds a Scale from the parent; writing changes only the parent's desired
// replicas, inside the parent store's guaranteed update, so the parent's
// strategy (validation, generation bump) runs as for any update. The
// parent's managers of spec.replicas are the Scale's, and a Scale writer
// takes the parent's spec.replicas, as upstream.
package scale

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Accessor reads and writes the replica fields of one parent kind. Every
// function receives an object of the parent store's kind.
type Accessor struct {
	// GetReplicas returns the desired replicas (spec.replicas; a nil
	// pointer counts as 0, though defaulting never leaves it nil).
	GetReplicas func(runtime.Object) int32
	// SetReplicas sets the desired replicas.
	SetReplicas func(runtime.Object, int32)
	// StatusReplicas returns the observed replicas (status.replicas).
	StatusReplicas func(runtime.Object) int32
	// Selector returns the pod selector as a label selector string
	// (status.selector of the Scale); an error becomes a 400.
	Selector func(runtime.Object) (string, error)
}

// REST is the scale subresource of one parent resource.
type REST struct {
	store *generic.Store
	acc   Accessor
}

var (
	_ rest.Patcher        = (*REST)(nil)
	_ rest.TableConvertor = (*REST)(nil)
)

// NewREST returns the scale subresource over the parent's store. The
// store is shared: writes go through its update strategy.
func NewREST(store *generic.Store, acc Accessor) *REST {
	return &REST{store: store, acc: acc}
}

// New returns an empty autoscaling/v1 Scale, the kind this subresource
// serves in every group.
func (r *REST) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy does nothing: the parent resource owns the storage.
func (r *REST) Destroy() {}

// Get returns the Scale of the named parent.
func (r *REST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	return r.scaleOf(obj)
}

// Update writes the desired replicas of a Scale into the parent. It never
// creates: a missing parent is a 404 naming the parent resource.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	info := &updatedObjectInfo{r: r, name: name, inner: objInfo}
	obj, _, err := r.store.Update(ctx, name, info, r.createValidation(createValidation), r.updateValidation(updateValidation), false, options)
	if err != nil {
		return nil, false, err
	}
	s, err := r.scaleOf(obj)
	return s, false, err
}

// ConvertToTable prints NAME DESIRED AVAILABLE AGE, as upstream prints a
// Scale.
func (r *REST) ConvertToTable(ctx context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	return table().ConvertToTable(ctx, object, tableOptions)
}

// scaleOf builds the Scale of a parent object. Errors are 400s, as
// upstream answers a parent whose selector cannot be parsed.
func (r *REST) scaleOf(obj runtime.Object) (*autoscalingv1.Scale, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	selector, err := r.acc.Selector(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              m.GetName(),
			Namespace:         m.GetNamespace(),
			UID:               m.GetUID(),
			ResourceVersion:   m.GetResourceVersion(),
			CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: r.acc.GetReplicas(obj)},
		Status: autoscalingv1.ScaleStatus{Replicas: r.acc.StatusReplicas(obj), Selector: selector},
	}, nil
}

// createValidation and updateValidation show admission the Scales, not
// the parents, as upstream does.
func (r *REST) createValidation(f rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, obj runtime.Object) error {
		s, err := r.scaleOf(obj)
		if err != nil {
			return err
		}
		return f(ctx, s)
	}
}

func (r *REST) updateValidation(f rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, obj, old runtime.Object) error {
		s, err := r.scaleOf(obj)
		if err != nil {
			return err
		}
		oldScale, err := r.scaleOf(old)
		if err != nil {
			return err
		}
		return f(ctx, s, oldScale)
	}
}

// updatedObjectInfo turns the current parent into the current Scale, asks
// the request for the new Scale, and moves its replicas (and the
// resourceVersion it was read at) into a copy of the parent.
type updatedObjectInfo struct {
	r     *REST
	name  string
	inner rest.UpdatedObjectInfo
}

func (i *updatedObjectInfo) Preconditions() *metav1.Preconditions { return i.inner.Preconditions() }

func (i *updatedObjectInfo) UpdatedObject(ctx context.Context, current runtime.Object) (runtime.Object, error) {
	parent := current.DeepCopyObject()
	m, err := meta.Accessor(parent)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if m.GetResourceVersion() == "" {
		return nil, apierrors.NewNotFound(i.r.store.DefaultQualifiedResource, i.name)
	}
	oldScale, err := i.r.scaleOf(parent)
	if err != nil {
		return nil, err
	}
	// Only the field manager sees the Scale's managed fields, translated
	// from the parent's; reads and responses carry none, as upstream.
	oldScale.ManagedFields = i.r.scaleManagedFields(parent)
	newObj, err := i.inner.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	s, ok := newObj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", newObj))
	}
	if errs := ValidateScale(s); len(errs) > 0 {
		return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), m.GetName(), errs)
	}
	if s.UID != "" && s.UID != m.GetUID() {
		return nil, apierrors.NewConflict(i.r.store.DefaultQualifiedResource, m.GetName(),
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", s.UID, m.GetUID()))
	}
	i.r.acc.SetReplicas(parent, s.Spec.Replicas)
	i.r.setParentManagedFields(parent, s.ManagedFields)
	// The store compares this with the stored version: a Scale read at an
	// older version is a conflict; none at all is an unconditional write.
	m.SetResourceVersion(s.ResourceVersion)
	return parent, nil
}

// LabelSelector is the Selector of kinds whose spec.selector is a
// metav1.LabelSelector: it renders sel the way status.selector shows it.
func LabelSelector(sel *metav1.LabelSelector) (string, error) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return "", err
	}
	return s.String(), nil
}
