package mutatingadmissionpolicybinding

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func errorPaths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	// matchResources: {} gets matchPolicy Equivalent and empty selectors.
	registrytest.Golden(t, scheme, storage["mutatingadmissionpolicybindings"].(rest.Creater), "testdata", "mutatingadmissionpolicybinding")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		spec admissionregistrationv1.MutatingAdmissionPolicyBindingSpec
		want []string
	}{
		{"valid", admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p"}, nil},
		{"bad policy name", admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "P!"}, []string{"FieldValueInvalid spec.policyName"}},
		{"bad match resources", admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p",
			MatchResources: &admissionregistrationv1.MatchResources{}},
			[]string{
				"FieldValueRequired spec.matchResources.matchPolicy",
				"FieldValueRequired spec.matchResources.namespaceSelector",
				"FieldValueRequired spec.matchResources.objectSelector",
			}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: tt.spec}
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), b))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
