package poddisruptionbudget

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["poddisruptionbudgets"].(rest.Creater), "testdata", "minimal")

	ctx := registrytest.NamespaceContext("ns")
	store, status := m["poddisruptionbudgets"].(rest.StandardStorage), m["poddisruptionbudgets/status"].(rest.Updater)
	if got := store.(rest.ShortNamesProvider).ShortNames(); len(got) != 1 || got[0] != "pdb" {
		t.Errorf("short names %v", got)
	}
	pdb := newPDB()
	pdb.Status.DisruptionsAllowed = 4
	obj, err := store.Create(ctx, pdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*policyv1.PodDisruptionBudget)
	if created.Status.DisruptionsAllowed != 0 || created.Generation != 1 {
		t.Fatalf("create: status %+v generation %d", created.Status, created.Generation)
	}

	// The eviction path writes status through the subresource; spec stays.
	st := created.DeepCopy()
	st.Status.DisruptionsAllowed, st.Spec.MinAvailable = 1, ptr.To(intstr.FromInt32(9))
	obj, _, err = status.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*policyv1.PodDisruptionBudget)
	if got.Status.DisruptionsAllowed != 1 || got.Spec.MinAvailable.IntVal != 2 || got.Generation != 1 {
		t.Errorf("status update: %+v %v generation %d", got.Status, got.Spec.MinAvailable, got.Generation)
	}

	upd := got.DeepCopy()
	upd.Status.DisruptionsAllowed, upd.Spec.MinAvailable = 0, ptr.To(intstr.FromString("50%"))
	obj, _, err = store.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = obj.(*policyv1.PodDisruptionBudget)
	if got.Status.DisruptionsAllowed != 1 || got.Spec.MinAvailable.StrVal != "50%" || got.Generation != 2 {
		t.Errorf("main update: %+v %v generation %d", got.Status, got.Spec.MinAvailable, got.Generation)
	}

	// Updates must name the version they read.
	blind := got.DeepCopy()
	blind.ResourceVersion = ""
	if _, _, err := store.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(blind), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("update without resourceVersion: %v, want Invalid", err)
	}
	both := got.DeepCopy()
	both.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1))
	if _, _, err := store.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(both), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("both set: %v, want Invalid", err)
	}
}
