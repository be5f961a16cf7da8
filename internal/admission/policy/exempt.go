package policy

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Exempt reports whether policies (from the API) never see requests for
// gr: the policy and binding resources themselves, so a policy cannot
// lock itself in, and the review resources, which are not persisted.
func Exempt(gr schema.GroupResource) bool {
	return exempt[gr]
}

var exempt = map[schema.GroupResource]bool{
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:                             true,
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:                       true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:                      true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:                  true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}:                 true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:                   true,
}
