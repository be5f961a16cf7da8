package flowcontrol

import (
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func userSubject(name string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: name}}
}

func groupSubject(name string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: name}}
}

func saSubject(ns, name string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: ns, Name: name}}
}

func schemaFor(name, level string, precedence int32, rules ...flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
	return &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         precedence,
			Rules:                      rules,
		},
	}
}

func resourceRule(verbs, groups, resources, namespaces []string, clusterScope bool) flowcontrolv1.ResourcePolicyRule {
	return flowcontrolv1.ResourcePolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, Namespaces: namespaces, ClusterScope: clusterScope}
}

func limitedLevel(name string, shares int32, queuing *flowcontrolv1.QueuingConfiguration) *flowcontrolv1.PriorityLevelConfiguration {
	lr := flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}
	if queuing != nil {
		lr = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: queuing}
	}
	return &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type:    flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To(shares), LendablePercent: ptr.To[int32](0), LimitResponse: lr},
		},
	}
}

func TestClassify(t *testing.T) {
	all := []string{"*"}
	schemas := []*flowcontrolv1.FlowSchema{
		// Same precedence as "b-alice": the name breaks the tie.
		schemaFor("a-alice-pods", "workload", 100, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      []flowcontrolv1.Subject{userSubject("alice")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{resourceRule([]string{"get", "list"}, []string{""}, []string{"pods", "pods/log"}, []string{"team"}, false)},
		}),
		schemaFor("b-alice", "workload", 100, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      []flowcontrolv1.Subject{userSubject("alice")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{resourceRule(all, all, all, all, true)},
		}),
		schemaFor("controllers", "system", 50, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      []flowcontrolv1.Subject{saSubject("kube-system", "*"), saSubject("apps", "deployer")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{resourceRule(all, []string{"apps"}, all, all, true)},
		}),
		schemaFor("health", "exempt", 20, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:         []flowcontrolv1.Subject{groupSubject("system:unauthenticated"), groupSubject("system:authenticated")},
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/livez/*"}}},
		}),
		schemaFor("dangling", "no-such-level", 1, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      []flowcontrolv1.Subject{groupSubject("*")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{resourceRule(all, all, all, all, true)},
		}),
	}
	levels := []*flowcontrolv1.PriorityLevelConfiguration{limitedLevel("workload", 10, nil), limitedLevel("system", 10, nil)}
	d := New(Options{ServerConcurrencyLimit: 10})
	d.Update(schemas, levels)

	authed := func(name string, groups ...string) user.Info {
		return &user.DefaultInfo{Name: name, Groups: append(groups, user.AllAuthenticated)}
	}
	res := func(verb, group, resource, sub, ns string) *request.RequestInfo {
		return &request.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns}
	}
	nonRes := func(verb, path string) *request.RequestInfo { return &request.RequestInfo{Verb: verb, Path: path} }
	for _, tc := range []struct {
		name string
		user user.Info
		info *request.RequestInfo
		want string
	}{
		{"user, verb, resource and namespace", authed("alice"), res("list", "", "pods", "", "team"), "a-alice-pods"},
		{"subresource spelled resource/sub", authed("alice"), res("get", "", "pods", "log", "team"), "a-alice-pods"},
		{"other subresource falls through", authed("alice"), res("get", "", "pods", "exec", "team"), "b-alice"},
		{"other namespace falls through", authed("alice"), res("list", "", "pods", "", "other"), "b-alice"},
		{"cluster scope needs clusterScope", authed("alice"), res("list", "", "nodes", "", ""), "b-alice"},
		{"service account of a namespace by *", authed("system:serviceaccount:kube-system:x"), res("update", "apps", "deployments", "", "a"), "controllers"},
		{"service account by name", authed("system:serviceaccount:apps:deployer"), res("update", "apps", "deployments", "", "a"), "controllers"},
		{"other service account", authed("system:serviceaccount:apps:other"), res("update", "apps", "deployments", "", "a"), "global-or-catch-all"},
		{"namespace prefix is not a namespace", authed("system:serviceaccount:kube-systemx:a"), res("update", "apps", "deployments", "", "a"), "global-or-catch-all"},
		{"resource rules do not match non-resource", authed("alice"), nonRes("get", "/version"), "global-or-catch-all"},
		{"non-resource exact path", authed("bob"), nonRes("get", "/healthz"), "health"},
		{"non-resource path is a prefix", authed("bob"), nonRes("get", "/healthz/etcd"), "health"},
		{"non-resource trailing *", authed("bob"), nonRes("get", "/livez/ping"), "health"},
		{"non-resource verb", authed("bob"), nonRes("post", "/healthz"), "global-or-catch-all"},
		{"system:masters is exempt", &user.DefaultInfo{Name: "admin", Groups: []string{"system:masters", user.AllAuthenticated}}, res("delete", "", "pods", "", "team"), "exempt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := d.Classify(RequestDigest{RequestInfo: tc.info, User: tc.user})
			want := tc.want
			if want == "global-or-catch-all" {
				want = flowcontrolv1.FlowSchemaNameCatchAll
			}
			if !ok || c.FlowSchemaName != want {
				t.Fatalf("classified into %q (%v), want %q", c.FlowSchemaName, ok, want)
			}
		})
	}
}

func TestFlowDistinguisher(t *testing.T) {
	fs := schemaFor("x", "workload", 1)
	digest := RequestDigest{User: &user.DefaultInfo{Name: "alice"}, RequestInfo: &request.RequestInfo{Namespace: "ns1"}}
	for _, tc := range []struct {
		method *flowcontrolv1.FlowDistinguisherMethod
		want   string
	}{
		{nil, ""},
		{&flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType}, "alice"},
		{&flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByNamespaceType}, "ns1"},
	} {
		fs.Spec.DistinguisherMethod = tc.method
		if got := flowDistinguisher(fs, digest); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.method, got, tc.want)
		}
	}
}

// TestMandatoryUntilConfigured: before any Update the exempt and
// catch-all objects classify, and an Update without them keeps them.
func TestMandatoryUntilConfigured(t *testing.T) {
	d := New(Options{ServerConcurrencyLimit: 10})
	if d.Configured() {
		t.Fatal("configured before Update")
	}
	masters := RequestDigest{User: &user.DefaultInfo{Name: "a", Groups: []string{"system:masters"}}, RequestInfo: &request.RequestInfo{Verb: "get", Path: "/x"}}
	other := RequestDigest{User: &user.DefaultInfo{Name: "b", Groups: []string{user.AllAuthenticated}}, RequestInfo: &request.RequestInfo{Verb: "get", Path: "/x"}}
	for _, upd := range []bool{false, true} {
		if upd {
			d.Update(nil, nil)
		}
		if c, _ := d.Classify(masters); c.PriorityLevelName != flowcontrolv1.PriorityLevelConfigurationNameExempt {
			t.Errorf("update=%v: system:masters in %q", upd, c.PriorityLevelName)
		}
		if c, _ := d.Classify(other); c.PriorityLevelName != flowcontrolv1.PriorityLevelConfigurationNameCatchAll || c.Distinguisher != "b" {
			t.Errorf("update=%v: others in %q flow %q", upd, c.PriorityLevelName, c.Distinguisher)
		}
	}
}
