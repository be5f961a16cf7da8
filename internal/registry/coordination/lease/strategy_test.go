package lease

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func withCLE() *coordinationv1.Lease {
	return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{
		Strategy:        ptr.To(coordinationv1.OldestEmulationVersion),
		PreferredHolder: ptr.To("a"),
	}}
}

func TestCoordinatedLeaderElectionFields(t *testing.T) {
	ctx := context.Background()
	off := NewStrategy(runtime.NewScheme())
	on := off
	on.CoordinatedLeaderElection = true

	l := withCLE()
	off.PrepareForCreate(ctx, l)
	if l.Spec.Strategy != nil || l.Spec.PreferredHolder != nil {
		t.Errorf("feature off, create kept %+v", l.Spec)
	}
	l = withCLE()
	on.PrepareForCreate(ctx, l)
	if l.Spec.Strategy == nil || l.Spec.PreferredHolder == nil {
		t.Errorf("feature on, create dropped %+v", l.Spec)
	}
	l = withCLE()
	off.PrepareForUpdate(ctx, l, &coordinationv1.Lease{})
	if l.Spec.Strategy != nil || l.Spec.PreferredHolder != nil {
		t.Errorf("feature off, update of a plain lease kept %+v", l.Spec)
	}
	l = withCLE()
	off.PrepareForUpdate(ctx, l, withCLE())
	if l.Spec.Strategy == nil || l.Spec.PreferredHolder == nil {
		t.Errorf("feature off, update of a lease that had them dropped %+v", l.Spec)
	}
}

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	r, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewREST: %v", err)
	}
	if r.GetSingularName() != "lease" {
		t.Errorf("singular = %q", r.GetSingularName())
	}
	ctx := registrytest.NamespaceContext("kube-system")
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "sched", Namespace: "kube-system"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("a"), LeaseDurationSeconds: ptr.To[int32](15)}}
	// Leader election creates its lease with a PUT.
	obj, created, err := r.Update(ctx, "sched", rest.DefaultUpdatedObjectInfo(lease), nil, nil, false, nil)
	if err != nil || !created {
		t.Fatalf("update-create: created=%v err=%v", created, err)
	}
	// A PUT without resourceVersion is refused: a lease needs optimistic
	// concurrency.
	takeover := obj.(*coordinationv1.Lease).DeepCopy()
	takeover.ResourceVersion = ""
	takeover.Spec.HolderIdentity = ptr.To("b")
	if _, _, err := r.Update(ctx, "sched", rest.DefaultUpdatedObjectInfo(takeover), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("unconditional update: %v, want Invalid", err)
	}
}
