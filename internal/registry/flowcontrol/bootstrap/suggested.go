package bootstrap

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/utils/ptr"

	kapiflowcontrolv1 "github.com/kapi-dev/kapi/internal/apis/flowcontrol/v1"
)

// AutoUpdateAnnotation marks objects whose spec the API server keeps equal
// to its bootstrap spec ("true") or leaves alone ("false").
const AutoUpdateAnnotation = autoUpdateAnnotation

// Well-known subjects of the suggested flow schemas.
const (
	groupNodes           = "system:nodes"
	groupServiceAccounts = "system:serviceaccounts"
	groupAuthenticated   = "system:authenticated"
	groupUnauthenticated = "system:unauthenticated"
	userControllerMgr    = "system:kube-controller-manager"
	userScheduler        = "system:kube-scheduler"
)

// SuggestedPriorityLevels returns new, defaulted copies of the priority
// levels kube-apiserver 1.37 suggests besides the mandatory ones, in
// upstream's order.
func SuggestedPriorityLevels() []*flowcontrolv1.PriorityLevelConfiguration {
	levels := []*flowcontrolv1.PriorityLevelConfiguration{
		limitedLevel("system", 30, 33, 64, 6, 50),
		limitedLevel("node-high", 40, 25, 64, 6, 50),
		limitedLevel("leader-election", 10, 0, 16, 4, 50),
		limitedLevel("workload-high", 40, 50, 128, 6, 50),
		limitedLevel("workload-low", 100, 90, 128, 6, 50),
		limitedLevel("global-default", 20, 50, 128, 6, 50),
	}
	for _, pl := range levels {
		kapiflowcontrolv1.SetDefaultsPriorityLevelConfiguration(pl)
	}
	return levels
}

// limitedLevel is a queuing priority level.
func limitedLevel(name string, shares, lendable, queues, handSize, queueLength int32) *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: objectMeta(name),
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To(shares),
				LendablePercent:          ptr.To(lendable),
				LimitResponse: flowcontrolv1.LimitResponse{
					Type: flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{
						Queues: queues, HandSize: handSize, QueueLengthLimit: queueLength,
					},
				},
			},
		},
	}
}

// SuggestedFlowSchemas returns new, defaulted copies of the flow schemas
// kube-apiserver 1.37 suggests besides the mandatory ones, in upstream's
// order.
func SuggestedFlowSchemas() []*flowcontrolv1.FlowSchema {
	byUser := &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType}
	byNamespace := &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByNamespaceType}
	leaseRule := flowcontrolv1.ResourcePolicyRule{
		Verbs: []string{"get", "create", "update"}, APIGroups: []string{"coordination.k8s.io"},
		Resources: []string{"leases"}, Namespaces: []string{"*"},
	}
	schemas := []*flowcontrolv1.FlowSchema{
		flowSchema("system-nodes", "system", 500, byUser, groupNodes),
		schemaWithRules("system-node-high", "node-high", 400, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: groupSubjects(groupNodes),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{
				{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Namespaces: []string{"*"}, ClusterScope: true},
				{Verbs: []string{"*"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Namespaces: []string{"*"}},
			},
		}),
		// Probes are exempt, so an overloaded server still answers them.
		schemaWithRules("probes", flowcontrolv1.PriorityLevelConfigurationNameExempt, 2, nil, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: groupSubjects(groupUnauthenticated, groupAuthenticated),
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{
				{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}},
			},
		}),
		schemaWithRules("system-leader-election", "leader-election", 100, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      append(userSubjects(userControllerMgr, userScheduler), kubeSystemServiceAccounts()...),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{leaseRule},
		}),
		schemaWithRules("kube-controller-manager", "workload-high", 800, byNamespace, allRules(userSubjects(userControllerMgr))),
		schemaWithRules("kube-scheduler", "workload-high", 800, byNamespace, allRules(userSubjects(userScheduler))),
		schemaWithRules("kube-system-service-accounts", "workload-high", 900, byNamespace, allRules(kubeSystemServiceAccounts())),
		flowSchema("service-accounts", "workload-low", 9000, byUser, groupServiceAccounts),
		flowSchema("global-default", "global-default", 9900, byUser, groupUnauthenticated, groupAuthenticated),
	}
	for _, fs := range schemas {
		kapiflowcontrolv1.SetDefaultsFlowSchema(fs)
	}
	return schemas
}

func schemaWithRules(name, level string, precedence int32, method *flowcontrolv1.FlowDistinguisherMethod, rules flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
	var m *flowcontrolv1.FlowDistinguisherMethod
	if method != nil {
		m = method.DeepCopy()
	}
	return &flowcontrolv1.FlowSchema{
		ObjectMeta: objectMeta(name),
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         precedence,
			DistinguisherMethod:        m,
			Rules:                      []flowcontrolv1.PolicyRulesWithSubjects{rules},
		},
	}
}

// allRules matches every request of subjects.
func allRules(subjects []flowcontrolv1.Subject) flowcontrolv1.PolicyRulesWithSubjects {
	return flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: subjects,
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
			Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true,
		}},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}
}

func groupSubjects(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, 0, len(names))
	for _, n := range names {
		out = append(out, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: n}})
	}
	return out
}

func userSubjects(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, 0, len(names))
	for _, n := range names {
		out = append(out, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: n}})
	}
	return out
}

// kubeSystemServiceAccounts is every service account of kube-system.
func kubeSystemServiceAccounts() []flowcontrolv1.Subject {
	return []flowcontrolv1.Subject{{
		Kind:           flowcontrolv1.SubjectKindServiceAccount,
		ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: "kube-system", Name: "*"},
	}}
}
