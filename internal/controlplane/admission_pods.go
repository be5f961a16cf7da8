package controlplane

import (
	"github.com/kapi-dev/kapi/internal/admission/plugins/serviceaccount"
)

// podAdmissionFactories are the built-in plugins that default and check
// pods (ServiceAccount, Priority, LimitRanger, PodSecurity, ...).
func podAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		serviceaccount.PluginName: func(d *admissionDeps) (any, error) {
			live := &objectGetter{}
			live.bind(d.storage.groups)
			o := serviceaccount.Options{Get: live.GetServiceAccount}
			if d.informers != nil {
				o.Lister = d.informers.factory.Core().V1().ServiceAccounts().Lister()
			}
			return serviceaccount.New(o), nil
		},
	}
}
