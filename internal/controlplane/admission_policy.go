package controlplane

// policyAdmissionFactories are the CEL admission policies
// (ValidatingAdmissionPolicy, MutatingAdmissionPolicy).
func policyAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{}
}
