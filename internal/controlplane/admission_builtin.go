package controlplane

import (
	"github.com/kapi-dev/kapi/internal/admission/plugins/namespacelifecycle"
	"github.com/kapi-dev/kapi/internal/admission/plugins/noderestriction"
)

// builtinAdmissionFactories builds kapi's built-in admission plugins by
// upstream name.
func builtinAdmissionFactories() map[string]admissionPluginFactory {
	all := map[string]admissionPluginFactory{}
	for _, part := range []map[string]admissionPluginFactory{
		namespaceAdmissionFactories(), podAdmissionFactories(), resourceAdmissionFactories(), policyAdmissionFactories(),
	} {
		for name, f := range part {
			all[name] = f
		}
	}
	return all
}

// namespaceAdmissionFactories are the plugins about namespaces and nodes.
func namespaceAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		namespacelifecycle.PluginName: func(d *admissionDeps) (any, error) {
			r := newNamespaceReader(d)
			return &lifecycleWithReader{plugin: namespacelifecycle.New(r.get, "default", "kube-system", "kube-public"), reader: r}, nil
		},
		noderestriction.PluginName: func(d *admissionDeps) (any, error) {
			pods := &objectGetter{}
			pods.bind(d.storage.groups)
			return noderestriction.New(pods.GetPod), nil
		},
	}
}
