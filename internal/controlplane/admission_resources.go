package controlplane

// resourceAdmissionFactories are the built-in plugins about other
// resources (ResourceQuota, storage and ingress classes, certificates,
// owner references, ...).
func resourceAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{}
}
