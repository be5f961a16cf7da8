package controlplane

import (
	"fmt"

	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/admission/plugins/resourcequota"
	"github.com/kapi-dev/kapi/internal/quota"
)

// resourceAdmissionFactories are the built-in plugins about other
// resources (ResourceQuota, storage and ingress classes, certificates,
// owner references, ...).
func resourceAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		resourcequota.PluginName: newResourceQuotaPlugin,
	}
}

// newResourceQuotaPlugin reads quotas through the shared informers and
// charges them through the loopback client; its configuration
// (limitedResources) comes from --admission-control-config-file.
func newResourceQuotaPlugin(d *admissionDeps) (any, error) {
	if d.informers == nil {
		return nil, fmt.Errorf("admission plugin %q needs the shared informers", resourcequota.PluginName)
	}
	data, err := d.pluginConfig(resourcequota.PluginName)
	if err != nil {
		return nil, err
	}
	cfg, err := resourcequota.LoadConfiguration(data)
	if err != nil {
		return nil, fmt.Errorf("admission plugin %q: %w", resourcequota.PluginName, err)
	}
	quotas := d.informers.factory.Core().V1().ResourceQuotas()
	access := resourcequota.NewAccessor(d.informers.client, quotas.Lister(), quotas.Informer().HasSynced)
	return resourcequota.New(quota.NewRegistry(clock.RealClock{}), access, cfg), nil
}
