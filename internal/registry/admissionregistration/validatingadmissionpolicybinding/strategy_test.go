package validatingadmissionpolicybinding

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

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

func newStore(t *testing.T) rest.StandardStorage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return storage["validatingadmissionpolicybindings"].(rest.StandardStorage)
}

func TestGolden(t *testing.T) {
	created := registrytest.Golden(t, registrytest.NewScheme(t), newStore(t), "testdata", "validatingadmissionpolicybinding")
	if g := created.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Generation; g != 1 {
		t.Errorf("generation = %d", g)
	}
}

func TestValidate(t *testing.T) {
	deny := ptr.To(admissionregistrationv1.DenyAction)
	tests := []struct {
		name string
		spec admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec
		want []string
	}{
		{"valid", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny"}}, nil},
		{"empty", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{},
			[]string{"FieldValueRequired spec.policyName", "FieldValueRequired spec.validationActions"}},
		{"deny and warn", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p",
			ValidationActions: []admissionregistrationv1.ValidationAction{"Deny", "Warn", "Warn", "Shout"}},
			[]string{
				"FieldValueDuplicate spec.validationActions[2]",
				"FieldValueNotSupported spec.validationActions[3]",
				"FieldValueInvalid spec.validationActions",
			}},
		{"param ref with name and selector", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p",
			ValidationActions: []admissionregistrationv1.ValidationAction{"Audit"},
			ParamRef:          &admissionregistrationv1.ParamRef{Name: "n", Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: deny}},
			[]string{"FieldValueForbidden spec.paramRef.name", "FieldValueForbidden spec.paramRef.selector"}},
		{"param ref without action", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p",
			ValidationActions: []admissionregistrationv1.ValidationAction{"Audit"},
			ParamRef:          &admissionregistrationv1.ParamRef{}},
			[]string{"FieldValueRequired spec.paramRef", "FieldValueRequired spec.paramRef.parameterNotFoundAction"}},
		{"match resources under upstream's misspelt path", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p",
			ValidationActions: []admissionregistrationv1.ValidationAction{"Deny"},
			MatchResources:    &admissionregistrationv1.MatchResources{}},
			[]string{
				"FieldValueRequired spec.matchResouces.matchPolicy",
				"FieldValueRequired spec.matchResouces.namespaceSelector",
				"FieldValueRequired spec.matchResouces.objectSelector",
			}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: tt.spec}
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), b))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestTableParamRef(t *testing.T) {
	tests := []struct {
		ref  *admissionregistrationv1.ParamRef
		want string
	}{
		{nil, "<unset>"},
		{&admissionregistrationv1.ParamRef{Name: "n", Namespace: "ns"}, "ns/n"},
		{&admissionregistrationv1.ParamRef{Name: "n"}, "*/n"},
	}
	for _, tt := range tests {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ParamRef: tt.ref}}
		table, err := Table().ConvertToTable(context.Background(), b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := table.Rows[0].Cells[1:3]; !cmp.Equal(got, []any{"p", tt.want}) {
			t.Errorf("paramRef %+v: cells %v, want [p %s]", tt.ref, got, tt.want)
		}
	}
}

func TestGeneration(t *testing.T) {
	store := newStore(t)
	ctx := context.Background()
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny"}}}
	obj, err := store.Create(ctx, b, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).DeepCopy()
	changed.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{"Audit"}
	obj, _, err = store.Update(ctx, "b", rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, nil)
	if err != nil || obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Generation != 2 {
		t.Fatalf("spec change: %v %v", obj, err)
	}
}
