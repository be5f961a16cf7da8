package priorityclass

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"

	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newREST(t *testing.T) *REST {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return storage["priorityclasses"].(*REST)
}

func errorPaths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestGolden(t *testing.T) {
	r := newREST(t)
	created := registrytest.Golden(t, registrytest.NewScheme(t), r, "testdata", "priorityclass")
	if g := created.(*schedulingv1.PriorityClass).Generation; g != 1 {
		t.Errorf("generation = %d, want 1", g)
	}
	if diff := cmp.Diff([]string{"pc"}, r.ShortNames()); diff != "" {
		t.Errorf("short names (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	never := corev1.PreemptNever
	bogus := corev1.PreemptionPolicy("Sometimes")
	tests := []struct {
		name string
		pc   schedulingv1.PriorityClass
		want []string
	}{
		{"valid", schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Value: 10, PreemptionPolicy: &never}, nil},
		{"system prefix", schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-mine"}, Value: 10}, []string{"FieldValueForbidden metadata.name"}},
		{"system class with another value", schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 10}, []string{"FieldValueForbidden metadata.name"}},
		{"system class", schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 2000001000}, nil},
		{"too high", schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Value: 1000000001}, []string{"FieldValueForbidden value"}},
		{"bad policy", schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p"}, PreemptionPolicy: &bogus}, []string{"FieldValueNotSupported preemptionPolicy"}},
		{"bad name", schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "P_Q"}}, []string{"FieldValueInvalid metadata.name"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		got := errorPaths(s.Validate(context.Background(), &tt.pc))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValueImmutable(t *testing.T) {
	r := newREST(t)
	ctx := context.Background()
	created, err := r.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Value: 5}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := created.(*schedulingv1.PriorityClass).DeepCopy()
	changed.Value = 6
	_, _, err = r.Update(ctx, "p", rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, nil)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("changing value: %v, want Invalid", err)
	}
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Field != "value" || causes[0].Message != "Forbidden: may not be changed in an update." {
		t.Errorf("causes = %+v", causes)
	}
	described := created.(*schedulingv1.PriorityClass).DeepCopy()
	described.Description = "now described"
	if _, _, err := r.Update(ctx, "p", rest.DefaultUpdatedObjectInfo(described), nil, nil, false, nil); err != nil {
		t.Errorf("changing description: %v", err)
	}
}

func TestSystemPriorityClasses(t *testing.T) {
	r := newREST(t)
	ctx := context.Background()
	client := fake.NewClientset().SchedulingV1().PriorityClasses()
	for range 2 { // a second run finds them and succeeds
		if err := EnsureSystemPriorityClasses(ctx, nil, client); err != nil {
			t.Fatalf("EnsureSystemPriorityClasses: %v", err)
		}
	}
	made, err := client.List(ctx, metav1.ListOptions{})
	if err != nil || len(made.Items) != 2 {
		t.Fatalf("created %v (%v), want the two system classes", made, err)
	}
	// Stored as the API server would store them: defaulted by the
	// handler (the store does not default), protected by the store.
	for _, pc := range made.Items {
		pc.ResourceVersion = ""
		kapischedulingv1.SetDefaultsPriorityClass(&pc)
		if _, err := r.Create(ctx, &pc, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
			t.Fatalf("storing %s: %v", pc.Name, err)
		}
	}
	obj, err := r.Get(ctx, "system-node-critical", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc := obj.(*schedulingv1.PriorityClass)
	if pc.Value != 2000001000 || pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("system-node-critical = %+v", pc)
	}
	if _, err := r.Get(ctx, "system-cluster-critical", &metav1.GetOptions{}); err != nil {
		t.Errorf("system-cluster-critical: %v", err)
	}
	if _, _, err := r.Delete(ctx, "system-cluster-critical", nil, nil); !apierrors.IsForbidden(err) {
		t.Errorf("deleting a system class: %v, want Forbidden", err)
	}
	if _, err := r.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Value: 1}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, deleted, err := r.Delete(ctx, "p", nil, nil); err != nil || !deleted {
		t.Errorf("deleting a user class: deleted=%v err=%v", deleted, err)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	policy := corev1.PreemptNever
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))}, Value: 7, GlobalDefault: true, PreemptionPolicy: &policy}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), pc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"p", int64(7), true, "60m", "Never"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

// TestSystemPriorityClassesAskExistsFirst: classes exists finds cost no
// request; the others are read and created through the client.
func TestSystemPriorityClassesAskExistsFirst(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	known := map[string]bool{"system-node-critical": true}
	exists := func(_ context.Context, name string) bool { return known[name] }
	if err := EnsureSystemPriorityClasses(ctx, exists, cs.SchedulingV1().PriorityClasses()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range cs.Actions() {
		name := ""
		if g, ok := a.(interface{ GetName() string }); ok {
			name = g.GetName()
		}
		if c, ok := a.(interface{ GetObject() runtime.Object }); ok {
			name = c.GetObject().(*schedulingv1.PriorityClass).Name
		}
		got = append(got, a.GetVerb()+" "+name)
	}
	want := []string{"get system-cluster-critical", "create system-cluster-critical"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}
