package horizontalpodautoscaler

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	creater := m["horizontalpodautoscalers"].(rest.Creater)
	for _, name := range []string{"minimal", "v1", "behavior"} {
		t.Run(name, func(t *testing.T) {
			hpa := registrytest.Golden(t, scheme, creater, "testdata", name).(*autoscalingv2.HorizontalPodAutoscaler)
			if len(hpa.Annotations) != 0 {
				t.Errorf("stored annotations %v", hpa.Annotations)
			}
		})
	}
}

func TestStatusAndGeneration(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	ctx := registrytest.NamespaceContext("ns")
	store, status := m["horizontalpodautoscalers"].(rest.StandardStorage), m["horizontalpodautoscalers/status"].(rest.Updater)
	if got := store.(rest.ShortNamesProvider).ShortNames(); len(got) != 1 || got[0] != "hpa" {
		t.Errorf("short names %v", got)
	}
	hpa := newHPA()
	hpa.Status.CurrentReplicas = 7
	obj, err := store.Create(ctx, hpa, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if created.Status.CurrentReplicas != 0 || created.Generation != 1 {
		t.Fatalf("create: status %+v generation %d", created.Status, created.Generation)
	}

	st := created.DeepCopy()
	st.Status.CurrentReplicas, st.Spec.MaxReplicas = 2, 99
	obj, _, err = status.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if got.Status.CurrentReplicas != 2 || got.Spec.MaxReplicas != 5 || got.Generation != 1 {
		t.Errorf("status update: replicas %d maxReplicas %d generation %d", got.Status.CurrentReplicas, got.Spec.MaxReplicas, got.Generation)
	}

	upd := got.DeepCopy()
	upd.Status.CurrentReplicas, upd.Spec.MaxReplicas = 0, 8
	obj, _, err = store.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if got.Status.CurrentReplicas != 2 || got.Spec.MaxReplicas != 8 || got.Generation != 2 {
		t.Errorf("main update: replicas %d maxReplicas %d generation %d", got.Status.CurrentReplicas, got.Spec.MaxReplicas, got.Generation)
	}

	bad := got.DeepCopy()
	bad.Spec.MaxReplicas = 0
	if _, _, err := store.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(bad), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("maxReplicas 0: %v, want Invalid", err)
	}
}
