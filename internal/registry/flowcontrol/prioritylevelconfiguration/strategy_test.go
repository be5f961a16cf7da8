package prioritylevelconfiguration

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
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

func newStorage(t *testing.T) (rest.StandardStorage, rest.Patcher) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return storage["prioritylevelconfigurations"].(rest.StandardStorage), storage["prioritylevelconfigurations/status"].(rest.Patcher)
}

func TestGolden(t *testing.T) {
	store, _ := newStorage(t)
	// Defaults: 30 shares, lendablePercent 0, 64 queues, hand 8, 50 long.
	created := registrytest.Golden(t, registrytest.NewScheme(t), store, "testdata", "prioritylevelconfiguration")
	l := created.(*flowcontrolv1.PriorityLevelConfiguration).Spec.Limited
	q := l.LimitResponse.Queuing
	if *l.NominalConcurrencyShares != 30 || *l.LendablePercent != 0 || q.Queues != 64 || q.HandSize != 8 || q.QueueLengthLimit != 50 {
		t.Errorf("defaults: %+v %+v", l, q)
	}
}

func limited(lr flowcontrolv1.LimitResponse) flowcontrolv1.PriorityLevelConfigurationSpec {
	return flowcontrolv1.PriorityLevelConfigurationSpec{
		Type:    flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](0), LimitResponse: lr},
	}
}

func TestValidate(t *testing.T) {
	reject := flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}
	tests := []struct {
		name string
		pl   string
		spec flowcontrolv1.PriorityLevelConfigurationSpec
		want []string
	}{
		{"zero shares are fine in v1", "pl", limited(reject), nil},
		{"exempt type needs the exempt name", "pl", flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt},
			[]string{"FieldValueInvalid spec.type"}},
		{"exempt", "exempt", flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt,
			Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{LendablePercent: ptr.To[int32](101)}},
			[]string{"FieldValueInvalid spec.exempt.lendablePercent"}},
		{"limited without config", "pl", flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited},
			[]string{"FieldValueRequired spec.limited"}},
		{"unknown type", "pl", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Sometimes"}, []string{"FieldValueNotSupported spec.type"}},
		{"queue without queuing", "pl", limited(flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue}),
			[]string{"FieldValueRequired spec.limited.limitResponse.queuing"}},
		{"reject with queuing", "pl", limited(flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject, Queuing: &flowcontrolv1.QueuingConfiguration{}}),
			[]string{"FieldValueForbidden spec.limited.limitResponse.queuing"}},
		{"bad queuing", "pl", limited(flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
			Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 4, HandSize: 5, QueueLengthLimit: 0}}),
			[]string{"FieldValueInvalid spec.limited.limitResponse.queuing.queueLengthLimit", "FieldValueInvalid spec.limited.limitResponse.queuing.handSize"}},
		{"too much entropy", "pl", limited(flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
			Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 1000000, HandSize: 10, QueueLengthLimit: 1}}),
			[]string{"FieldValueInvalid spec.limited.limitResponse.queuing.handSize"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: tt.pl}, Spec: tt.spec}
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), pl))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestStatusAndGeneration(t *testing.T) {
	store, status := newStorage(t)
	ctx := context.Background()
	obj, err := store.Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "pl"},
		Spec: limited(flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject})}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := obj.(*flowcontrolv1.PriorityLevelConfiguration)
	withStatus := pl.DeepCopy()
	withStatus.Status.Conditions = []flowcontrolv1.PriorityLevelConfigurationCondition{{Type: "Ready", Status: "True"}}
	withStatus.Spec.Limited.NominalConcurrencyShares = ptr.To[int32](9)
	obj, _, err = status.Update(ctx, "pl", rest.DefaultUpdatedObjectInfo(withStatus), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl = obj.(*flowcontrolv1.PriorityLevelConfiguration)
	if len(pl.Status.Conditions) != 1 || *pl.Spec.Limited.NominalConcurrencyShares != 0 || pl.Generation != 1 {
		t.Fatalf("after status update: %+v", pl)
	}
	respec := pl.DeepCopy()
	respec.Status = flowcontrolv1.PriorityLevelConfigurationStatus{}
	respec.Spec.Limited.NominalConcurrencyShares = ptr.To[int32](9)
	obj, _, err = store.Update(ctx, "pl", rest.DefaultUpdatedObjectInfo(respec), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl = obj.(*flowcontrolv1.PriorityLevelConfiguration)
	if len(pl.Status.Conditions) != 1 || pl.Generation != 2 {
		t.Errorf("after spec update: generation %d, status %+v", pl.Generation, pl.Status)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	exempt := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "exempt"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt"}}
	queued := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: limited(flowcontrolv1.LimitResponse{
		Type: "Queue", Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 64, HandSize: 8, QueueLengthLimit: 50}})}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(),
		&flowcontrolv1.PriorityLevelConfigurationList{Items: []flowcontrolv1.PriorityLevelConfiguration{*exempt, *queued}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "<unknown>"},
		{"q", "Limited", int64(0), int64(64), int64(8), int64(50), "<unknown>"},
	}
	var got [][]any
	for _, r := range table.Rows {
		got = append(got, r.Cells)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
