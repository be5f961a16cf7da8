package scale_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scale"
)

// strategy is a minimal deployment strategy: spec/status with generation,
// and replicas >= 0 so the parent's own validation is seen to run.
type strategy struct{ rest.SpecStatusStrategy }

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validate(obj.(*appsv1.Deployment))
}

func (strategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validate(obj.(*appsv1.Deployment))
}

func validate(d *appsv1.Deployment) field.ErrorList {
	if d.Spec.Replicas != nil && *d.Spec.Replicas > 100 {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), *d.Spec.Replicas, "too many")}
	}
	return nil
}

var accessor = scale.Accessor{
	GetReplicas:    func(o runtime.Object) int32 { return ptr.Deref(o.(*appsv1.Deployment).Spec.Replicas, 0) },
	SetReplicas:    func(o runtime.Object, n int32) { o.(*appsv1.Deployment).Spec.Replicas = &n },
	StatusReplicas: func(o runtime.Object) int32 { return o.(*appsv1.Deployment).Status.Replicas },
	Selector: func(o runtime.Object) (string, error) {
		return scale.LabelSelector(o.(*appsv1.Deployment).Spec.Selector)
	},
}

func setup(t *testing.T) (*generic.Store, *scale.REST, context.Context, *appsv1.Deployment) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:     func() runtime.Object { return &appsv1.Deployment{} },
		NewListFunc: func() runtime.Object { return &appsv1.DeploymentList{} },
		Resource:    appsv1.Resource("deployments"),
		Singular:    appsv1.Resource("deployment"),
		Strategy:    strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: scheme}}},
	}, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	ctx := registrytest.NamespaceContext("ns")
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		},
	}
	created, err := store.Create(ctx, d, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Give it a status, as a controller would.
	withStatus := created.(*appsv1.Deployment).DeepCopy()
	withStatus.Status.Replicas = 2
	statusStore := generic.NewStatusREST(store, statusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: scheme}}})
	updated, _, err := statusStore.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(withStatus), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return store, scale.NewREST(store, accessor), ctx, updated.(*appsv1.Deployment)
}

type statusStrategy struct{ rest.StatusSubresourceStrategy }

func (statusStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }
func (statusStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

func TestGet(t *testing.T) {
	_, r, ctx, d := setup(t)
	obj, err := r.Get(ctx, "web", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := obj.(*autoscalingv1.Scale)
	want := autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: d.UID, ResourceVersion: d.ResourceVersion, CreationTimestamp: d.CreationTimestamp},
		Spec:       autoscalingv1.ScaleSpec{Replicas: 2},
		Status:     autoscalingv1.ScaleStatus{Replicas: 2, Selector: "app=web"},
	}
	if s.ObjectMeta.String() != want.ObjectMeta.String() || s.Spec != want.Spec || s.Status != want.Status {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
	if _, err := r.Get(ctx, "missing", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get missing: %v, want NotFound", err)
	}
}

// scaleTo is a PUT of a Scale with the given replicas, resourceVersion and uid.
func scaleTo(replicas int32, rv string, uid string) rest.UpdatedObjectInfo {
	return rest.DefaultUpdatedObjectInfo(&autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", ResourceVersion: rv, UID: typesUID(uid)},
		Spec:       autoscalingv1.ScaleSpec{Replicas: replicas},
	})
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name     string
		replicas int32
		rv       func(d *appsv1.Deployment) string
		uid      func(d *appsv1.Deployment) string
		// want is nil for success, else the error check.
		want      func(error) bool
		wantCause string
	}{
		{name: "current version", replicas: 5, rv: func(d *appsv1.Deployment) string { return d.ResourceVersion }},
		{name: "no version", replicas: 0},
		{name: "stale version", replicas: 5, rv: func(*appsv1.Deployment) string { return "1" }, want: apierrors.IsConflict},
		{name: "other uid", replicas: 5, uid: func(*appsv1.Deployment) string { return "other" }, want: apierrors.IsConflict},
		{name: "negative", replicas: -1, want: apierrors.IsInvalid, wantCause: "spec.replicas"},
		{name: "parent invalid", replicas: 101, want: apierrors.IsInvalid, wantCause: "spec.replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, r, ctx, d := setup(t)
			rv, uid := "", ""
			if tt.rv != nil {
				rv = tt.rv(d)
			}
			if tt.uid != nil {
				uid = tt.uid(d)
			}
			obj, created, err := r.Update(ctx, "web", scaleTo(tt.replicas, rv, uid), nil, nil, true, nil)
			if tt.want != nil {
				if !tt.want(err) {
					t.Fatalf("err = %v", err)
				}
				if tt.wantCause != "" {
					causes := err.(apierrors.APIStatus).Status().Details.Causes
					if len(causes) != 1 || causes[0].Field != tt.wantCause {
						t.Errorf("causes = %+v, want one on %s", causes, tt.wantCause)
					}
				}
				return
			}
			if err != nil || created {
				t.Fatalf("update: created=%v err=%v", created, err)
			}
			if s := obj.(*autoscalingv1.Scale); s.Spec.Replicas != tt.replicas || s.Status.Replicas != 2 || s.Status.Selector != "app=web" {
				t.Errorf("returned scale %+v", s)
			}
			got, err := store.Get(ctx, "web", &metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gd := got.(*appsv1.Deployment)
			if *gd.Spec.Replicas != tt.replicas || gd.Status.Replicas != 2 || gd.Generation != d.Generation+1 {
				t.Errorf("stored replicas=%d status=%d generation=%d (was %d)", *gd.Spec.Replicas, gd.Status.Replicas, gd.Generation, d.Generation)
			}
		})
	}
}

func TestUpdateMissing(t *testing.T) {
	_, r, ctx, _ := setup(t)
	_, _, err := r.Update(ctx, "x", rest.DefaultUpdatedObjectInfo(&autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"},
		Spec:       autoscalingv1.ScaleSpec{Replicas: 1},
	}), nil, nil, true, nil)
	if !apierrors.IsNotFound(err) || err.Error() != `deployments.apps "x" not found` {
		t.Errorf("err = %v, want deployments.apps \"x\" not found", err)
	}
}

func TestAdmissionSeesScales(t *testing.T) {
	_, r, ctx, _ := setup(t)
	var gotNew, gotOld runtime.Object
	validate := func(_ context.Context, obj, old runtime.Object) error {
		gotNew, gotOld = obj, old
		return nil
	}
	if _, _, err := r.Update(ctx, "web", scaleTo(3, "", ""), nil, validate, false, nil); err != nil {
		t.Fatal(err)
	}
	n, ok1 := gotNew.(*autoscalingv1.Scale)
	o, ok2 := gotOld.(*autoscalingv1.Scale)
	if !ok1 || !ok2 || n.Spec.Replicas != 3 || o.Spec.Replicas != 2 {
		t.Errorf("admission saw %T %+v and %T %+v", gotNew, gotNew, gotOld, gotOld)
	}
}

func TestTable(t *testing.T) {
	_, r, ctx, _ := setup(t)
	obj, err := r.Get(ctx, "web", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	table, err := r.ConvertToTable(ctx, obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if len(names) != 4 || names[1] != "Desired" || names[2] != "Available" {
		t.Errorf("columns = %v", names)
	}
	if cells := table.Rows[0].Cells; cells[0] != "web" || cells[1] != int64(2) || cells[2] != int64(2) {
		t.Errorf("cells = %v", cells)
	}
}

func typesUID(s string) types.UID { return types.UID(s) }
