package job

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) (*runtime.Scheme, map[string]rest.Storage) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return scheme, m
}

// goldenUIDCreater replaces the generated uid in the labels and selector
// the server derives from it, so the golden files do not change per run.
type goldenUIDCreater struct{ rest.Creater }

func (c goldenUIDCreater) Create(ctx context.Context, obj runtime.Object, v rest.ValidateObjectFunc, o *metav1.CreateOptions) (runtime.Object, error) {
	created, err := c.Creater.Create(ctx, obj, v, o)
	if err != nil {
		return nil, err
	}
	job := created.(*batchv1.Job).DeepCopy()
	for _, m := range []map[string]string{job.Labels, job.Spec.Template.Labels, job.Spec.Selector.MatchLabels} {
		for _, k := range []string{"controller-uid", batchv1.ControllerUidLabel} {
			if m[k] == string(job.UID) {
				m[k] = string(registrytest.GoldenUID)
			}
		}
	}
	return job, nil
}

func TestGolden(t *testing.T) {
	scheme, m := newStorage(t)
	job := registrytest.Golden(t, scheme, goldenUIDCreater{m["jobs"].(rest.Creater)}, "testdata", "minimal").(*batchv1.Job)
	if *job.Spec.BackoffLimit != 6 || *job.Spec.Completions != 1 || *job.Spec.Parallelism != 1 {
		t.Errorf("defaults not applied: %+v", job.Spec)
	}
}

func TestCreateInvalid(t *testing.T) {
	_, m := newStorage(t)
	job := newJob()
	job.Spec.Template.Spec.RestartPolicy = "Always"
	_, err := m["jobs"].(rest.Creater).Create(registrytest.NamespaceContext("ns"), job, nil, nil)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("create with restartPolicy Always: %v, want Invalid", err)
	}
}

func TestStatusAndGeneration(t *testing.T) {
	_, m := newStorage(t)
	ctx := registrytest.NamespaceContext("ns")
	store := m["jobs"].(rest.StandardStorage)
	status := m["jobs/status"].(rest.Updater)

	job := newJob()
	job.Status.Active = 5
	obj, err := store.Create(ctx, job, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*batchv1.Job)
	if created.Status.Active != 0 || created.Generation != 1 {
		t.Fatalf("create: status %+v generation %d", created.Status, created.Generation)
	}

	// A main update ignores status and bumps generation on a spec change.
	upd := created.DeepCopy()
	upd.Status.Active = 3
	upd.Spec.Parallelism = new(int32)
	obj, _, err = store.Update(ctx, "pi", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	updated := obj.(*batchv1.Job)
	if updated.Status.Active != 0 || updated.Generation != 2 {
		t.Errorf("update: status %+v generation %d, want no status and generation 2", updated.Status, updated.Generation)
	}

	// A status update keeps spec and generation.
	st := updated.DeepCopy()
	st.Status.Active = 1
	st.Spec.Parallelism = nil
	obj, _, err = status.Update(ctx, "pi", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*batchv1.Job)
	if got.Status.Active != 1 || got.Spec.Parallelism == nil || *got.Spec.Parallelism != 0 || got.Generation != 2 {
		t.Errorf("status update: status %+v parallelism %v generation %d", got.Status, got.Spec.Parallelism, got.Generation)
	}

	bad := got.DeepCopy()
	bad.Status.Failed = -1
	if _, _, err := status.Update(ctx, "pi", rest.DefaultUpdatedObjectInfo(bad), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("negative status.failed: %v, want Invalid", err)
	}
}

func TestFieldSelectors(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	gvk := batchv1.SchemeGroupVersion.WithKind("Job")
	_, fs, err := GetAttrs(newJob())
	if err != nil {
		t.Fatal(err)
	}
	for label := range fs {
		if _, _, err := scheme.ConvertFieldLabel(gvk, label, "1"); err != nil {
			t.Errorf("GetAttrs offers %q but field selectors reject it: %v", label, err)
		}
	}
	_, _, err = scheme.ConvertFieldLabel(gvk, "status.failed", "1")
	if err == nil || err.Error() != `field label "status.failed" not supported for batchv1.Job` {
		t.Errorf("status.failed: %v", err)
	}
}
