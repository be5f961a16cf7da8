package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestAcceptNames(t *testing.T) {
	taken := &apiextv1.CustomResourceDefinition{}
	taken.Name = "widgets.example.com"
	taken.Spec.Group = "example.com"
	taken.Status.AcceptedNames = apiextv1.CustomResourceDefinitionNames{
		Plural: "widgets", Singular: "widget", ShortNames: []string{"wd", "w"}, Kind: "Widget", ListKind: "WidgetList",
	}
	free := apiextv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", ShortNames: []string{"gd"}, Kind: "Gadget", ListKind: "GadgetList"}
	with := func(change func(*apiextv1.CustomResourceDefinitionNames)) apiextv1.CustomResourceDefinitionNames {
		n := free
		n.ShortNames = append([]string(nil), free.ShortNames...)
		change(&n)
		return n
	}

	tests := []struct {
		name         string
		group        string
		spec, have   apiextv1.CustomResourceDefinitionNames
		wantAccepted apiextv1.CustomResourceDefinitionNames
		wantCond     string
	}{
		{name: "free", group: "example.com", spec: free, wantAccepted: free, wantCond: "True NoConflicts: no conflicts found"},
		{name: "other group", group: "other.com", spec: taken.Status.AcceptedNames, wantAccepted: taken.Status.AcceptedNames, wantCond: "True NoConflicts: no conflicts found"},
		{
			name: "plural", group: "example.com",
			spec:         with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Plural = "widgets" }),
			wantAccepted: with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Plural = "" }),
			wantCond:     `False PluralConflict: "widgets" is already in use`,
		},
		{
			name: "plural against a taken singular", group: "example.com",
			spec:         with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Plural = "widget" }),
			wantAccepted: with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Plural = "" }),
			wantCond:     `False PluralConflict: "widget" is already in use`,
		},
		{
			name: "singular", group: "example.com",
			spec:         with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Singular = "wd" }),
			wantAccepted: with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Singular = "" }),
			wantCond:     `False SingularConflict: "wd" is already in use`,
		},
		{
			name: "short names", group: "example.com",
			spec:         with(func(n *apiextv1.CustomResourceDefinitionNames) { n.ShortNames = []string{"gd", "wd", "w"} }),
			wantAccepted: with(func(n *apiextv1.CustomResourceDefinitionNames) { n.ShortNames = nil }),
			wantCond:     `False ShortNamesConflict: ["wd" is already in use, "w" is already in use]`,
		},
		{
			name: "kind", group: "example.com",
			spec:         with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Kind = "Widget" }),
			wantAccepted: with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Kind = "" }),
			wantCond:     `False KindConflict: "Widget" is already in use`,
		},
		{
			name: "list kind", group: "example.com",
			spec:         with(func(n *apiextv1.CustomResourceDefinitionNames) { n.ListKind = "WidgetList" }),
			wantAccepted: with(func(n *apiextv1.CustomResourceDefinitionNames) { n.ListKind = "" }),
			wantCond:     `False ListKindConflict: "WidgetList" is already in use`,
		},
		{
			name: "a conflicting rename keeps the accepted name", group: "example.com",
			spec:         with(func(n *apiextv1.CustomResourceDefinitionNames) { n.Plural = "widgets" }),
			have:         free,
			wantAccepted: free,
			wantCond:     `False PluralConflict: "widgets" is already in use`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &controller{cache: newCache()}
			c.cache.put(taken)
			crd := &apiextv1.CustomResourceDefinition{}
			crd.Name = "mine." + tt.group
			crd.Spec.Group = tt.group
			crd.Spec.Names = tt.spec
			crd.Status.AcceptedNames = tt.have
			names, accepted, _ := c.acceptNames(crd)
			if diff := cmp.Diff(tt.wantAccepted, names); diff != "" {
				t.Errorf("accepted names (-want +got):\n%s", diff)
			}
			if got := string(accepted.Status) + " " + accepted.Reason + ": " + accepted.Message; got != tt.wantCond {
				t.Errorf("NamesAccepted = %q, want %q", got, tt.wantCond)
			}
		})
	}
}
