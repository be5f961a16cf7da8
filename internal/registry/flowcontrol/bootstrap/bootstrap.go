// Package bootstrap holds the API Priority and Fairness configuration
// objects kube-apiserver 1.37 keeps: the mandatory exempt and catch-all
// priority levels and flow schemas, and the suggested ones (system,
// node-high, leader-election, workload-high, workload-low, global-default
// and their flow schemas). The ensurer package reconciles them.
package bootstrap

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kapiflowcontrolv1 "github.com/kapi-dev/kapi/internal/apis/flowcontrol/v1"
)

// autoUpdateAnnotation marks objects whose spec the API server keeps up to
// date.
const autoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec"

// MandatoryPriorityLevels returns new copies of the exempt and catch-all
// priority levels, defaulted.
func MandatoryPriorityLevels() []*flowcontrolv1.PriorityLevelConfiguration {
	levels := []*flowcontrolv1.PriorityLevelConfiguration{
		{
			ObjectMeta: objectMeta(flowcontrolv1.PriorityLevelConfigurationNameExempt),
			Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
				Type:   flowcontrolv1.PriorityLevelEnablementExempt,
				Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](0), LendablePercent: ptr.To[int32](0)},
			},
		},
		{
			ObjectMeta: objectMeta(flowcontrolv1.PriorityLevelConfigurationNameCatchAll),
			Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
				Type: flowcontrolv1.PriorityLevelEnablementLimited,
				Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
					NominalConcurrencyShares: ptr.To[int32](5),
					LendablePercent:          ptr.To[int32](0),
					LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
				},
			},
		},
	}
	for _, pl := range levels {
		kapiflowcontrolv1.SetDefaultsPriorityLevelConfiguration(pl)
	}
	return levels
}

// MandatoryFlowSchemas returns new copies of the exempt flow schema
// (system:masters, precedence 1) and the catch-all one (everyone,
// precedence 10000, by user), defaulted.
func MandatoryFlowSchemas() []*flowcontrolv1.FlowSchema {
	schemas := []*flowcontrolv1.FlowSchema{
		flowSchema(flowcontrolv1.FlowSchemaNameExempt, flowcontrolv1.PriorityLevelConfigurationNameExempt, 1, nil, "system:masters"),
		flowSchema(flowcontrolv1.FlowSchemaNameCatchAll, flowcontrolv1.PriorityLevelConfigurationNameCatchAll, 10000,
			&flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			"system:unauthenticated", "system:authenticated"),
	}
	for _, fs := range schemas {
		kapiflowcontrolv1.SetDefaultsFlowSchema(fs)
	}
	return schemas
}

func objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Annotations: map[string]string{autoUpdateAnnotation: "true"}}
}

// flowSchema matches every request of the groups.
func flowSchema(name, level string, precedence int32, method *flowcontrolv1.FlowDistinguisherMethod, groups ...string) *flowcontrolv1.FlowSchema {
	subjects := make([]flowcontrolv1.Subject, 0, len(groups))
	for _, g := range groups {
		subjects = append(subjects, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: g}})
	}
	return &flowcontrolv1.FlowSchema{
		ObjectMeta: objectMeta(name),
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         precedence,
			DistinguisherMethod:        method,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: subjects,
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
					Namespaces: []string{"*"}, ClusterScope: true,
				}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
			}},
		},
	}
}
