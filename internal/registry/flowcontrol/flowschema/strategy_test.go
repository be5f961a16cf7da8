package flowschema

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
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

func newStorage(t *testing.T) (rest.StandardStorage, rest.Patcher) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return storage["flowschemas"].(rest.StandardStorage), storage["flowschemas/status"].(rest.Patcher)
}

func TestGolden(t *testing.T) {
	store, _ := newStorage(t)
	// The input's status is dropped and matchingPrecedence defaulted.
	created := registrytest.Golden(t, registrytest.NewScheme(t), store, "testdata", "flowschema")
	fs := created.(*flowcontrolv1.FlowSchema)
	if fs.Generation != 1 || len(fs.Status.Conditions) != 0 || fs.Spec.MatchingPrecedence != 1000 {
		t.Errorf("created = %+v", fs)
	}
}

func validSpec() flowcontrolv1.FlowSchemaSpec {
	return flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "pl"},
		MatchingPrecedence:         500,
		Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
			Subjects:         []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "u"}}},
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*"}}},
		}},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*flowcontrolv1.FlowSchema)
		want   []string
	}{
		{"valid", func(*flowcontrolv1.FlowSchema) {}, nil},
		{"precedence 1", func(fs *flowcontrolv1.FlowSchema) { fs.Spec.MatchingPrecedence = 1 }, []string{"FieldValueInvalid spec.matchingPrecedence"}},
		{"precedence too high", func(fs *flowcontrolv1.FlowSchema) { fs.Spec.MatchingPrecedence = 10001 }, []string{"FieldValueInvalid spec.matchingPrecedence"}},
		{"no priority level", func(fs *flowcontrolv1.FlowSchema) { fs.Spec.PriorityLevelConfiguration.Name = "" },
			[]string{"FieldValueRequired spec.priorityLevelConfiguration.name"}},
		{"bad distinguisher", func(fs *flowcontrolv1.FlowSchema) {
			fs.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: "ByColor"}
		}, []string{"FieldValueNotSupported spec.distinguisherMethod.type"}},
		{"user subject without user", func(fs *flowcontrolv1.FlowSchema) {
			fs.Spec.Rules[0].Subjects[0] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, Group: &flowcontrolv1.GroupSubject{Name: "g"}}
		}, []string{"FieldValueRequired spec.rules[0].subjects[0].user", "FieldValueForbidden spec.rules[0].subjects[0].group"}},
		{"bad rules", func(fs *flowcontrolv1.FlowSchema) {
			fs.Spec.Rules[0].NonResourceRules = []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"fly"}, NonResourceURLs: []string{"/a*"}}}
			fs.Spec.Rules[0].ResourceRules = []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get"}}}
		}, []string{
			"FieldValueRequired spec.rules[0].resourceRules[0].apiGroups",
			"FieldValueRequired spec.rules[0].resourceRules[0].resources",
			"FieldValueRequired spec.rules[0].resourceRules[0].namespaces",
			"FieldValueNotSupported spec.rules[0].nonResourceRules[0].verbs",
			"FieldValueInvalid spec.rules[0].nonResourceRules[0].nonResourceURLs[0]",
		}},
		{"duplicate condition", func(fs *flowcontrolv1.FlowSchema) {
			fs.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{{Type: "Dangling"}, {Type: "Dangling"}}
		}, []string{"FieldValueDuplicate status.conditions[1].type"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "fs"}, Spec: validSpec()}
		tt.mutate(fs)
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), fs))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestStatusAndGeneration(t *testing.T) {
	store, status := newStorage(t)
	ctx := context.Background()
	obj, err := store.Create(ctx, &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "fs"}, Spec: validSpec()}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := obj.(*flowcontrolv1.FlowSchema)

	// A status write keeps spec, labels and generation.
	withStatus := fs.DeepCopy()
	withStatus.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse}}
	withStatus.Spec.MatchingPrecedence = 9
	withStatus.Labels = map[string]string{"a": "b"}
	obj, _, err = status.Update(ctx, "fs", rest.DefaultUpdatedObjectInfo(withStatus), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs = obj.(*flowcontrolv1.FlowSchema)
	if len(fs.Status.Conditions) != 1 || fs.Spec.MatchingPrecedence != 500 || fs.Labels != nil || fs.Generation != 1 {
		t.Fatalf("after status update: %+v", fs)
	}

	// A main write keeps status; a metadata-only change keeps generation.
	relabeled := fs.DeepCopy()
	relabeled.Labels = map[string]string{"a": "b"}
	relabeled.Status = flowcontrolv1.FlowSchemaStatus{}
	obj, _, err = store.Update(ctx, "fs", rest.DefaultUpdatedObjectInfo(relabeled), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs = obj.(*flowcontrolv1.FlowSchema)
	if len(fs.Status.Conditions) != 1 || fs.Generation != 1 || fs.Labels["a"] != "b" {
		t.Fatalf("after relabel: %+v", fs)
	}

	respec := fs.DeepCopy()
	respec.Spec.MatchingPrecedence = 600
	obj, _, err = store.Update(ctx, "fs", rest.DefaultUpdatedObjectInfo(respec), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := obj.(*flowcontrolv1.FlowSchema).Generation; g != 2 {
		t.Errorf("generation after spec change = %d, want 2", g)
	}
}

func TestTableSortsByPrecedence(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	list := &flowcontrolv1.FlowSchemaList{Items: []flowcontrolv1.FlowSchema{
		{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: 100, PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "pl"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: 1}},
		{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: 100, DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: "ByUser"}},
			Status: flowcontrolv1.FlowSchemaStatus{Conditions: []flowcontrolv1.FlowSchemaCondition{{Type: "Dangling", Status: "False"}}}},
	}}
	tbl := NewTable()
	tbl.Table = tbl.WithClock(func() time.Time { return now })
	table, err := tbl.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, r := range table.Rows {
		got = append(got, r.Cells)
	}
	want := [][]any{
		{"c", "", int64(1), "<none>", "<unknown>", "?"},
		{"a", "", int64(100), "ByUser", "<unknown>", "False"},
		{"b", "pl", int64(100), "<none>", "<unknown>", "?"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if list.Items[0].Name != "b" {
		t.Errorf("the list itself was reordered")
	}
}
