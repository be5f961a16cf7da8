package controlplane

import (
	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/namespacelifecycle"
	"github.com/kapi-dev/kapi/internal/admission/plugins/noderestriction"
)

// AdmissionPlugins are the plugins kapi has, in the order they run; all
// are on unless --disable-admission-plugins names them.
var AdmissionPlugins = []string{"NamespaceLifecycle", noderestriction.PluginName}

// admissionChain is the admission chain of the core server.
func admissionChain(c *Config, storage *coreStorage) admission.Chain {
	enabled := map[string]bool{}
	for _, p := range AdmissionPlugins {
		enabled[p] = true
	}
	for _, p := range c.Security.EnableAdmissionPlugins {
		enabled[p] = true
	}
	for _, p := range c.Security.DisableAdmissionPlugins {
		enabled[p] = false
	}
	var chain admission.Chain
	if enabled["NamespaceLifecycle"] {
		chain = append(chain, namespacelifecycle.New(storage.getNamespace, "default", "kube-system", "kube-public"))
	}
	if enabled[noderestriction.PluginName] {
		pods := &objectGetter{}
		pods.bind(storage.groups)
		chain = append(chain, noderestriction.New(pods.GetPod))
	}
	return chain
}
