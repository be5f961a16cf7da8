package podtemplate

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var ctx = registrytest.NamespaceContext("default")

func newStore(t *testing.T) *generic.Store {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	s, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return s["podtemplates"].(*generic.Store)
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	s, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	created := registrytest.Golden(t, scheme, s["podtemplates"].(*generic.Store), "testdata", "podtemplate").(*corev1.PodTemplate)
	if created.Generation != 1 {
		t.Errorf("generation = %d, want 1", created.Generation)
	}
	// Templates get no pod-only defaults: requests stay unset.
	if r := created.Template.Spec.Containers[0].Resources.Requests; r != nil {
		t.Errorf("requests defaulted on a template: %v", r)
	}
}

func TestValidation(t *testing.T) {
	store := newStore(t)
	tests := []struct {
		name  string
		tmpl  corev1.PodTemplateSpec
		field string
		cause metav1.CauseType
	}{
		{"no containers", corev1.PodTemplateSpec{}, "template.spec.containers", metav1.CauseTypeFieldValueRequired},
		{"bad label", corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a b"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
		}, "template.labels", metav1.CauseTypeFieldValueInvalid},
		{"container name", corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "C", Image: "i"}}}},
			"template.spec.containers[0].name", metav1.CauseTypeFieldValueInvalid},
	}
	for _, tt := range tests {
		obj := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "default"}, Template: tt.tmpl}
		registrytest.NewScheme(t).Default(obj)
		_, err := store.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("%s: %v, want 422", tt.name, err)
			continue
		}
		causes := err.(apierrors.APIStatus).Status().Details.Causes
		if len(causes) != 1 || causes[0].Field != tt.field || causes[0].Type != tt.cause {
			t.Errorf("%s: causes %+v, want one %s at %s", tt.name, causes, tt.cause, tt.field)
		}
	}
}

func TestUpdate(t *testing.T) {
	store := newStore(t)
	scheme := registrytest.NewScheme(t)
	obj := &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "default"},
		Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i:1"}}}},
	}
	scheme.Default(obj)
	out, err := store.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := out.(*corev1.PodTemplate)
	put := func(tmpl *corev1.PodTemplate) (*corev1.PodTemplate, error) {
		out, _, err := store.Update(ctx, tmpl.Name, rest.DefaultUpdatedObjectInfo(tmpl), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		if err != nil {
			return nil, err
		}
		return out.(*corev1.PodTemplate), nil
	}
	tmpl.Labels = map[string]string{"a": "b"}
	if tmpl, err = put(tmpl); err != nil || tmpl.Generation != 1 {
		t.Fatalf("label update: generation %d, %v", tmpl.Generation, err)
	}
	tmpl.Template.Spec.Containers[0].Image = "i:2"
	if tmpl, err = put(tmpl); err != nil || tmpl.Generation != 2 {
		t.Fatalf("template update: generation %d, %v", tmpl.Generation, err)
	}
	tmpl.Template.Spec.Containers[0].Image = ""
	if _, err := put(tmpl); !apierrors.IsInvalid(err) {
		t.Errorf("empty image: %v, want 422", err)
	}
	other := tmpl.DeepCopy()
	other.Namespace = "elsewhere"
	if _, err := put(other); err == nil {
		t.Error("namespace change accepted")
	}
}

func TestTable(t *testing.T) {
	tmpl := &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "t"},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"b": "2", "a": "1"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "i:1"}, {Name: "y", Image: "j:2"}}},
		},
	}
	got, err := Table().WithClock(time.Now).ConvertToTable(context.Background(), tmpl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"t", "x,y", "i:1,j:2", "a=1,b=2"}, got.Rows[0].Cells); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	empty, _ := Table().ConvertToTable(context.Background(), &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "e"}}, nil)
	if cell := empty.Rows[0].Cells[3]; cell != "<none>" {
		t.Errorf("labels of an unlabelled template = %v, want <none>", cell)
	}
}
