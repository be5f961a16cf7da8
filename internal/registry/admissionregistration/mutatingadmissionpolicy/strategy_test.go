package mutatingadmissionpolicy

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kapiadmissionregistrationv1 "github.com/kapi-dev/kapi/internal/apis/admissionregistration/v1"
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
	return storage["mutatingadmissionpolicies"].(rest.StandardStorage)
}

func TestGolden(t *testing.T) {
	registrytest.Golden(t, registrytest.NewScheme(t), newStore(t), "testdata", "mutatingadmissionpolicy")
}

func policy() *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{"CREATE"},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				},
			}}},
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: `[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]`}}},
			ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		},
	}
	kapiadmissionregistrationv1.SetDefaultsMutatingAdmissionPolicy(p)
	return p
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*admissionregistrationv1.MutatingAdmissionPolicy)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.MutatingAdmissionPolicy) {}, nil},
		{"no mutations or reinvocation policy", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations, p.Spec.ReinvocationPolicy = nil, ""
		}, []string{"FieldValueRequired spec.mutations", "FieldValueRequired spec.reinvocationPolicy"}},
		{"patch type mismatch", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations[0].PatchType = admissionregistrationv1.PatchTypeApplyConfiguration
		}, []string{"FieldValueRequired spec.mutations[0].applyConfiguration", "FieldValueInvalid spec.mutations[0].jsonPatch"}},
		{"unknown patch type", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.Mutations[0].PatchType = "Merge" },
			[]string{"FieldValueNotSupported spec.mutations[0].patchType"}},
		{"bad match policy", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConstraints.MatchPolicy = nil
			p.Spec.MatchConstraints.ObjectSelector = nil
		}, []string{"FieldValueRequired spec.matchConstraints.matchPolicy", "FieldValueRequired spec.matchConstraints.objectSelector"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		p := policy()
		tt.mutate(p)
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), p))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestGeneration(t *testing.T) {
	store := newStore(t)
	ctx := context.Background()
	obj, err := store.Create(ctx, policy(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	relabeled := obj.(*admissionregistrationv1.MutatingAdmissionPolicy).DeepCopy()
	relabeled.Labels = map[string]string{"a": "b"}
	obj, _, err = store.Update(ctx, "p", rest.DefaultUpdatedObjectInfo(relabeled), nil, nil, false, nil)
	if err != nil || obj.(*admissionregistrationv1.MutatingAdmissionPolicy).Generation != 1 {
		t.Fatalf("relabel: %v %v", obj, err)
	}
	respec := obj.(*admissionregistrationv1.MutatingAdmissionPolicy).DeepCopy()
	respec.Spec.ReinvocationPolicy = admissionregistrationv1.NeverReinvocationPolicy
	obj, _, err = store.Update(ctx, "p", rest.DefaultUpdatedObjectInfo(respec), nil, nil, false, nil)
	if err != nil || obj.(*admissionregistrationv1.MutatingAdmissionPolicy).Generation != 2 {
		t.Fatalf("spec change: %v %v", obj, err)
	}
}
