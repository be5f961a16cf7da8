package controlplane

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/internal/apis/install"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

func fullTypeConverter(t testing.TB) managedfields.TypeConverter {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		t.Fatal(err)
	}
	tc, err := definitions.NewBuilder(scheme).TypeConverter()
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// TestTrustedTypesMatchesTheConverter: whatever it skips, trustedTypes
// gives the typed values and errors of the converter it wraps: the same
// field sets for Go-typed objects (duplicate keys included), the
// converter's own answer for unstructured objects, for calls that
// validate fully and for kinds it has no schema of.
func TestTrustedTypesMatchesTheConverter(t *testing.T) {
	tc := fullTypeConverter(t)
	trusted := newTrustedTypes(tc)
	deployment := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Labels: map[string]string{"a": "b"}},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "c", Image: "i", Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: "TCP"}}},
			{Name: "c", Image: "j"}, // a duplicate key
		}}}},
	}
	unstructuredCM := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "u"}, "data": map[string]any{"k": "v"}}}
	cases := []struct {
		name string
		obj  runtime.Object
		opts []typed.ValidationOptions
	}{
		{"config map", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Data: map[string]string{"k": "v"}},
			[]typed.ValidationOptions{typed.AllowDuplicates}},
		{"deployment with duplicate containers", deployment, []typed.ValidationOptions{typed.AllowDuplicates}},
		{"duplicates refused without the option", deployment, nil},
		{"unstructured", unstructuredCM, []typed.ValidationOptions{typed.AllowDuplicates}},
		{"unknown kind", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v9", Kind: "ConfigMap"}},
			[]typed.ValidationOptions{typed.AllowDuplicates}},
	}
	for _, tc2 := range cases {
		t.Run(tc2.name, func(t *testing.T) {
			for round := range 2 { // the second from the cached shape
				want, wantErr := tc.ObjectToTyped(tc2.obj, tc2.opts...)
				got, gotErr := trusted.ObjectToTyped(tc2.obj, tc2.opts...)
				if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
					t.Fatalf("round %d: error %v, want %v", round, gotErr, wantErr)
				}
				if wantErr != nil {
					continue
				}
				wantSet, err := want.ToFieldSet()
				if err != nil {
					t.Fatal(err)
				}
				gotSet, err := got.ToFieldSet()
				if err != nil {
					t.Fatal(err)
				}
				if !gotSet.Equals(wantSet) {
					t.Errorf("round %d: field set\n%s\nwant\n%s", round, gotSet, wantSet)
				}
				if _, err := got.Compare(want); err != nil {
					t.Errorf("round %d: the typed values do not share a schema: %v", round, err)
				}
			}
		})
	}
}

func BenchmarkObjectToTyped(b *testing.B) {
	tc := fullTypeConverter(b)
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}}, Data: map[string]string{"k": "v"}}
	for name, c := range map[string]managedfields.TypeConverter{"apimachinery": tc, "trusted": newTrustedTypes(tc)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.ObjectToTyped(cm, typed.AllowDuplicates); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
