package controlplane

import (
	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/admission/policy/validating"
)

// policyAdmissionFactories are the CEL admission policies
// (ValidatingAdmissionPolicy, MutatingAdmissionPolicy).
func policyAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		validating.PluginName: func(d *admissionDeps) (any, error) {
			v1 := d.informers.factory.Admissionregistration().V1()
			return validating.New(v1.ValidatingAdmissionPolicies(), v1.ValidatingAdmissionPolicyBindings(), d.storage.getNamespace, policyParams(d))
		},
	}
}

// policyParams reads policy parameters of any kind through the shared
// dynamic informers, and through the loopback client until they synced.
func policyParams(d *admissionDeps) policy.ParamSource {
	si := d.informers
	return policy.NewDynamicParams(si.dynamicClient, si.client.Discovery(), si.dynamic, si.startDynamic)
}
