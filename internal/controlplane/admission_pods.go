package controlplane

// podAdmissionFactories are the built-in plugins that default and check
// pods (ServiceAccount, Priority, LimitRanger, PodSecurity, ...).
func podAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{}
}
