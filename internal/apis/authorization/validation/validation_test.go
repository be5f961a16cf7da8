package validation

import (
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldErr is the part of a field.Error the tests compare.
type fieldErr struct {
	typ    field.ErrorType
	field  string
	detail string
}

func summarize(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{e.Type, e.Field, e.Detail})
	}
	return out
}

func check(t *testing.T, got field.ErrorList, want []fieldErr) {
	t.Helper()
	g := summarize(got)
	if len(g) != len(want) {
		t.Fatalf("errors = %+v, want %+v", g, want)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("error %d = %+v, want %+v", i, g[i], want[i])
		}
	}
}

var (
	pods   = &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods", Namespace: "ns"}
	health = &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/healthz"}
)

const (
	invalid  = field.ErrorTypeInvalid
	required = field.ErrorTypeRequired
)

func TestValidateSubjectAccessReview(t *testing.T) {
	tests := []struct {
		name string
		sar  authorizationv1.SubjectAccessReview
		want []fieldErr
	}{
		{name: "resource", sar: authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: pods}}},
		{name: "non-resource with groups only", sar: authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{Groups: []string{"g"}, NonResourceAttributes: health}}},
		{
			name: "managed fields are allowed",
			sar: authorizationv1.SubjectAccessReview{
				ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
				Spec:       authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: pods},
			},
		},
		{
			name: "no attributes and no subject",
			want: []fieldErr{
				{invalid, "spec", exactlyOneAttributes},
				{invalid, "spec.user", "at least one of user or group must be specified"},
			},
		},
		{
			name: "both attributes",
			sar:  authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: pods, NonResourceAttributes: health}},
			want: []fieldErr{{invalid, "spec", exactlyOneAttributes}},
		},
		{
			name: "metadata must be empty",
			sar: authorizationv1.SubjectAccessReview{
				ObjectMeta: metav1.ObjectMeta{Name: "x"},
				Spec:       authorizationv1.SubjectAccessReviewSpec{User: "a", NonResourceAttributes: health},
			},
			want: []fieldErr{{invalid, "metadata", "must be empty"}},
		},
		{
			name: "selector forms",
			sar: authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "list", Resource: "pods",
				FieldSelector: &authorizationv1.FieldSelectorAttributes{},
				LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "a=b", Requirements: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists}}},
			}}},
			want: []fieldErr{
				{required, "spec.resourceAttributes.fieldSelector.requirements", "when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required"},
				{invalid, "spec.resourceAttributes.labelSelector.rawSelector", "may not specified at the same time as requirements"},
			},
		},
		{
			name: "selector requirement without a key",
			sar: authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "list", Resource: "pods",
				FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{{Operator: metav1.FieldSelectorOpIn, Values: []string{"x"}}}},
			}}},
			want: []fieldErr{{required, "spec.resourceAttributes.fieldSelector.requirements[0].key", "must be specified"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, ValidateSubjectAccessReview(&tt.sar), tt.want)
		})
	}
}

func TestValidateSelfSubjectAccessReview(t *testing.T) {
	tests := []struct {
		name string
		sar  authorizationv1.SelfSubjectAccessReview
		want []fieldErr
	}{
		{name: "no subject needed", sar: authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: pods}}},
		{name: "no attributes", want: []fieldErr{{invalid, "spec", exactlyOneAttributes}}},
		{
			name: "namespace in metadata",
			sar:  authorizationv1.SelfSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: health}},
			want: []fieldErr{{invalid, "metadata", "must be empty"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, ValidateSelfSubjectAccessReview(&tt.sar), tt.want)
		})
	}
}

func TestValidateLocalSubjectAccessReview(t *testing.T) {
	tests := []struct {
		name string
		sar  authorizationv1.LocalSubjectAccessReview
		want []fieldErr
	}{
		{
			name: "matching namespace",
			sar:  authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: pods}},
		},
		{
			name: "other namespace",
			sar:  authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "other"}, Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: pods}},
			want: []fieldErr{{invalid, "spec.resourceAttributes.namespace", "must match metadata.namespace"}},
		},
		{
			name: "non-resource and a name",
			sar:  authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "n"}, Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", NonResourceAttributes: health}},
			want: []fieldErr{
				{invalid, "metadata", "must be empty except for namespace"},
				{invalid, "spec.nonResourceAttributes", "disallowed on this kind of request"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, ValidateLocalSubjectAccessReview(&tt.sar), tt.want)
		})
	}
}
