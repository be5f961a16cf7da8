package v1

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// Defaults of flowcontrol.apiserver.k8s.io/v1, as upstream.
const (
	FlowSchemaDefaultMatchingPrecedence                       int32 = 1000
	PriorityLevelConfigurationDefaultHandSize                 int32 = 8
	PriorityLevelConfigurationDefaultQueues                   int32 = 64
	PriorityLevelConfigurationDefaultQueueLengthLimit         int32 = 50
	PriorityLevelConfigurationDefaultNominalConcurrencyShares int32 = 30
)

// RegisterDefaults adds the defaulting functions of FlowSchema and
// PriorityLevelConfiguration, and of their lists, to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.FlowSchema{}, func(obj any) {
		SetDefaultsFlowSchema(obj.(*flowcontrolv1.FlowSchema))
	})
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.FlowSchemaList{}, func(obj any) {
		for i := range obj.(*flowcontrolv1.FlowSchemaList).Items {
			SetDefaultsFlowSchema(&obj.(*flowcontrolv1.FlowSchemaList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.PriorityLevelConfiguration{}, func(obj any) {
		SetDefaultsPriorityLevelConfiguration(obj.(*flowcontrolv1.PriorityLevelConfiguration))
	})
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.PriorityLevelConfigurationList{}, func(obj any) {
		for i := range obj.(*flowcontrolv1.PriorityLevelConfigurationList).Items {
			SetDefaultsPriorityLevelConfiguration(&obj.(*flowcontrolv1.PriorityLevelConfigurationList).Items[i])
		}
	})
	return nil
}

// SetDefaultsFlowSchema gives a flow schema matchingPrecedence 1000 when
// it has none.
func SetDefaultsFlowSchema(fs *flowcontrolv1.FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = FlowSchemaDefaultMatchingPrecedence
	}
}

// SetDefaultsPriorityLevelConfiguration fills the exempt or limited
// configuration a priority level has: shares and lendable percent, and
// the queuing parameters when it queues.
func SetDefaultsPriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) {
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr.To[int32](0)
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr.To[int32](0)
		}
	}
	if l := pl.Spec.Limited; l != nil {
		// In v1 an explicit 0 stays 0; only a missing value gets 30.
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptr.To(PriorityLevelConfigurationDefaultNominalConcurrencyShares)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptr.To[int32](0)
		}
		if q := l.LimitResponse.Queuing; q != nil {
			SetDefaultsQueuingConfiguration(q)
		}
	}
}

// SetDefaultsQueuingConfiguration fills queues (64), handSize (8) and
// queueLengthLimit (50).
func SetDefaultsQueuingConfiguration(q *flowcontrolv1.QueuingConfiguration) {
	if q.HandSize == 0 {
		q.HandSize = PriorityLevelConfigurationDefaultHandSize
	}
	if q.Queues == 0 {
		q.Queues = PriorityLevelConfigurationDefaultQueues
	}
	if q.QueueLengthLimit == 0 {
		q.QueueLengthLimit = PriorityLevelConfigurationDefaultQueueLengthLimit
	}
}
