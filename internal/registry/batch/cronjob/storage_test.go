package cronjob

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["cronjobs"].(rest.Creater), "testdata", "minimal")

	ctx := registrytest.NamespaceContext("ns")
	store, status := m["cronjobs"].(rest.StandardStorage), m["cronjobs/status"].(rest.Updater)
	if got := store.(rest.ShortNamesProvider).ShortNames(); len(got) != 1 || got[0] != "cj" {
		t.Errorf("short names %v", got)
	}
	cj := newCronJob()
	cj.ResourceVersion = ""
	cj.Spec.Schedule = "61 * * * *"
	if _, err := store.Create(ctx, cj, nil, nil); !apierrors.IsInvalid(err) {
		t.Fatalf("bad schedule: %v, want Invalid", err)
	}
	cj.Spec.Schedule = "@daily"
	obj, err := store.Create(ctx, cj, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := obj.(*batchv1.CronJob).DeepCopy()
	st.Status.LastScheduleTime = &st.CreationTimestamp
	st.Spec.Schedule = "@hourly"
	obj, _, err = status.Update(ctx, "hello", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*batchv1.CronJob); got.Spec.Schedule != "@daily" || got.Status.LastScheduleTime == nil || got.Generation != 1 {
		t.Errorf("status update: schedule %q status %+v generation %d", got.Spec.Schedule, got.Status, got.Generation)
	}
	upd := obj.(*batchv1.CronJob).DeepCopy()
	upd.Status.LastScheduleTime = nil
	upd.Spec.Schedule = "@hourly"
	obj, _, err = store.Update(ctx, "hello", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*batchv1.CronJob); got.Spec.Schedule != "@hourly" || got.Status.LastScheduleTime == nil || got.Generation != 2 {
		t.Errorf("main update: schedule %q status %+v generation %d", got.Spec.Schedule, got.Status, got.Generation)
	}
}
