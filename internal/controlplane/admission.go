package controlplane

import (
	"github.com/kapi-dev/kapi/internal/admission"
)

// admissionDeps are what admission plugins are built from.
type admissionDeps struct {
	config  *Config
	storage *coreStorage
	// informers is the server's shared factory; plugins that read other
	// objects (service accounts, limit ranges, quotas, ...) use its
	// listers, which the start-shared-informers hook starts.
	informers *sharedInformers
	// authz is the server's authorizer (nil when a test builds the chain
	// without security); plugins that check permissions use it.
	authz *authorization
	// pluginConfig returns the configuration --admission-control-config-file
	// gives the named plugin, or nil when it gives none.
	pluginConfig func(name string) ([]byte, error)
}

// admissionPluginFactory builds one named plugin of the chain.
type admissionPluginFactory func(d *admissionDeps) (any, error)

// AdmissionPlugins are the plugins kapi has, in the order they run; all
// are on unless --disable-admission-plugins names them.
var AdmissionPlugins = []string{"NamespaceLifecycle", "NodeRestriction", "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy"}

// admissionChain is the admission chain of the core server.
func admissionChain(d *admissionDeps) (admission.Chain, error) {
	c := d.config
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
	if d.pluginConfig == nil {
		d.pluginConfig = func(string) ([]byte, error) { return nil, nil }
	}
	factories := builtinAdmissionFactories()
	var chain admission.Chain
	for _, name := range AdmissionPlugins {
		if !enabled[name] {
			continue
		}
		p, err := factories[name](d)
		if err != nil {
			return nil, err
		}
		chain = append(chain, p)
	}
	return chain, nil
}
