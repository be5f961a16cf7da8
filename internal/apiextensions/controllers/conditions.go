package controllers

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/internal/apis/apiextensions/apihelpers"
)

// findCondition returns crd's condition of type t, or nil.
func findCondition(crd *apiextv1.CustomResourceDefinition, t apiextv1.CustomResourceDefinitionConditionType) *apiextv1.CustomResourceDefinitionCondition {
	return apihelpers.FindCondition(crd, t)
}

func isConditionTrue(crd *apiextv1.CustomResourceDefinition, t apiextv1.CustomResourceDefinitionConditionType) bool {
	c := findCondition(crd, t)
	return c != nil && c.Status == apiextv1.ConditionTrue
}

// sameCondition compares what a condition says, not when it last changed.
func sameCondition(a, b *apiextv1.CustomResourceDefinitionCondition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}

func setCondition(crd *apiextv1.CustomResourceDefinition, c apiextv1.CustomResourceDefinitionCondition, now metav1.Time) {
	apihelpers.SetCondition(crd, c, now)
}

func removeCondition(crd *apiextv1.CustomResourceDefinition, t apiextv1.CustomResourceDefinitionConditionType) {
	crd.Status.Conditions = slices.DeleteFunc(crd.Status.Conditions, func(c apiextv1.CustomResourceDefinitionCondition) bool {
		return c.Type == t
	})
}
