package bootstrap

import (
	"fmt"
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// TestPriorityLevelSpecs pins every bootstrap priority level to
// kube-apiserver 1.37's: shares, lendable percent and queuing.
func TestPriorityLevelSpecs(t *testing.T) {
	want := map[string]string{ // name: shares/lendable/response/queues/hand/length
		"exempt":          "exempt 0/0",
		"catch-all":       "5/0/Reject",
		"system":          "30/33/Queue/64/6/50",
		"node-high":       "40/25/Queue/64/6/50",
		"leader-election": "10/0/Queue/16/4/50",
		"workload-high":   "40/50/Queue/128/6/50",
		"workload-low":    "100/90/Queue/128/6/50",
		"global-default":  "20/50/Queue/128/6/50",
	}
	all := append(MandatoryPriorityLevels(), SuggestedPriorityLevels()...)
	if len(all) != len(want) {
		t.Errorf("got %d priority levels, want %d", len(all), len(want))
	}
	for _, pl := range all {
		if pl.Annotations[AutoUpdateAnnotation] != "true" {
			t.Errorf("%s: annotation %q", pl.Name, pl.Annotations[AutoUpdateAnnotation])
		}
		var got string
		if e := pl.Spec.Exempt; e != nil {
			got = fmt.Sprintf("exempt %d/%d", *e.NominalConcurrencyShares, *e.LendablePercent)
		} else {
			l := pl.Spec.Limited
			got = fmt.Sprintf("%d/%d/%s", *l.NominalConcurrencyShares, *l.LendablePercent, l.LimitResponse.Type)
			if q := l.LimitResponse.Queuing; q != nil {
				got += fmt.Sprintf("/%d/%d/%d", q.Queues, q.HandSize, q.QueueLengthLimit)
			}
		}
		if got != want[pl.Name] {
			t.Errorf("%s = %s, want %s", pl.Name, got, want[pl.Name])
		}
	}
}

// TestFlowSchemaSpecs pins every bootstrap flow schema to kube-apiserver
// 1.37's: level, precedence, distinguisher, subjects and rules.
func TestFlowSchemaSpecs(t *testing.T) {
	all := "*/*/*/*/cluster"
	want := map[string]string{
		"exempt":                       "exempt 1 - G:system:masters R:" + all + " N:*/*",
		"probes":                       "exempt 2 - G:system:unauthenticated,G:system:authenticated N:get//healthz,/readyz,/livez",
		"system-leader-election":       "leader-election 100 ByUser U:system:kube-controller-manager,U:system:kube-scheduler,SA:kube-system/* R:get,create,update/coordination.k8s.io/leases/*/ns",
		"system-node-high":             "node-high 400 ByUser G:system:nodes R:*//nodes,nodes/status/*/cluster R:*/coordination.k8s.io/leases/*/ns",
		"system-nodes":                 "system 500 ByUser G:system:nodes R:" + all + " N:*/*",
		"kube-controller-manager":      "workload-high 800 ByNamespace U:system:kube-controller-manager R:" + all + " N:*/*",
		"kube-scheduler":               "workload-high 800 ByNamespace U:system:kube-scheduler R:" + all + " N:*/*",
		"kube-system-service-accounts": "workload-high 900 ByNamespace SA:kube-system/* R:" + all + " N:*/*",
		"service-accounts":             "workload-low 9000 ByUser G:system:serviceaccounts R:" + all + " N:*/*",
		"global-default":               "global-default 9900 ByUser G:system:unauthenticated,G:system:authenticated R:" + all + " N:*/*",
		"catch-all":                    "catch-all 10000 ByUser G:system:unauthenticated,G:system:authenticated R:" + all + " N:*/*",
	}
	schemas := append(MandatoryFlowSchemas(), SuggestedFlowSchemas()...)
	if len(schemas) != len(want) {
		t.Errorf("got %d flow schemas, want %d", len(schemas), len(want))
	}
	for _, fs := range schemas {
		if fs.Annotations[AutoUpdateAnnotation] != "true" {
			t.Errorf("%s: annotation %q", fs.Name, fs.Annotations[AutoUpdateAnnotation])
		}
		if got := describe(fs); got != want[fs.Name] {
			t.Errorf("%s:\n got %s\nwant %s", fs.Name, got, want[fs.Name])
		}
	}
}

func describe(fs *flowcontrolv1.FlowSchema) string {
	method := "-"
	if fs.Spec.DistinguisherMethod != nil {
		method = string(fs.Spec.DistinguisherMethod.Type)
	}
	parts := []string{fs.Spec.PriorityLevelConfiguration.Name, fmt.Sprint(fs.Spec.MatchingPrecedence), method}
	for _, r := range fs.Spec.Rules {
		var subjects []string
		for _, s := range r.Subjects {
			switch s.Kind {
			case flowcontrolv1.SubjectKindGroup:
				subjects = append(subjects, "G:"+s.Group.Name)
			case flowcontrolv1.SubjectKindUser:
				subjects = append(subjects, "U:"+s.User.Name)
			case flowcontrolv1.SubjectKindServiceAccount:
				subjects = append(subjects, "SA:"+s.ServiceAccount.Namespace+"/"+s.ServiceAccount.Name)
			}
		}
		parts = append(parts, strings.Join(subjects, ","))
		for _, rr := range r.ResourceRules {
			scope := "ns"
			if rr.ClusterScope {
				scope = "cluster"
			}
			parts = append(parts, "R:"+strings.Join([]string{strings.Join(rr.Verbs, ","), strings.Join(rr.APIGroups, ","),
				strings.Join(rr.Resources, ","), strings.Join(rr.Namespaces, ","), scope}, "/"))
		}
		for _, nr := range r.NonResourceRules {
			parts = append(parts, "N:"+strings.Join(nr.Verbs, ",")+"/"+strings.Join(nr.NonResourceURLs, ","))
		}
	}
	return strings.Join(parts, " ")
}
