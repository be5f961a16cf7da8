package controlplane

import (
	"fmt"

	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/admission/plugins/certificates/approval"
	"github.com/kapi-dev/kapi/internal/admission/plugins/certificates/ctbattest"
	"github.com/kapi-dev/kapi/internal/admission/plugins/certificates/signing"
	"github.com/kapi-dev/kapi/internal/admission/plugins/certificates/subjectrestriction"
	"github.com/kapi-dev/kapi/internal/admission/plugins/defaultingressclass"
	"github.com/kapi-dev/kapi/internal/admission/plugins/defaultstorageclass"
	"github.com/kapi-dev/kapi/internal/admission/plugins/denyserviceexternalips"
	"github.com/kapi-dev/kapi/internal/admission/plugins/eventratelimit"
	"github.com/kapi-dev/kapi/internal/admission/plugins/ownerreferences"
	"github.com/kapi-dev/kapi/internal/admission/plugins/persistentvolumeclaimresize"
	"github.com/kapi-dev/kapi/internal/admission/plugins/resourcequota"
	"github.com/kapi-dev/kapi/internal/admission/plugins/storageobjectinuseprotection"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/quota"
)

// resourceAuthorizer is the server's authorizer, nil when the chain is
// built without one (the plugins that need it then refuse to start, as
// upstream's do).
func resourceAuthorizer(d *admissionDeps) authorizer.Authorizer {
	if d.authz == nil {
		return nil
	}
	return d.authz.authorizer
}

// resourceAdmissionFactories are the built-in plugins about other
// resources (ResourceQuota, storage and ingress classes, certificates,
// owner references, ...).
func resourceAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		resourcequota.PluginName: newResourceQuotaPlugin,
		defaultstorageclass.PluginName: func(d *admissionDeps) (any, error) {
			classes := d.informers.factory.Storage().V1().StorageClasses()
			p := defaultstorageclass.New(classes.Lister())
			p.Synced = classes.Informer().HasSynced
			return p, nil
		},
		defaultingressclass.PluginName: func(d *admissionDeps) (any, error) {
			classes := d.informers.factory.Networking().V1().IngressClasses()
			p := defaultingressclass.New(classes.Lister())
			p.Synced = classes.Informer().HasSynced
			return p, nil
		},
		storageobjectinuseprotection.PluginName: func(*admissionDeps) (any, error) {
			return storageobjectinuseprotection.Plugin{}, nil
		},
		approval.PluginName:  func(d *admissionDeps) (any, error) { return approval.New(resourceAuthorizer(d)) },
		signing.PluginName:   func(d *admissionDeps) (any, error) { return signing.New(resourceAuthorizer(d)) },
		ctbattest.PluginName: func(d *admissionDeps) (any, error) { return ctbattest.New(resourceAuthorizer(d)) },
		subjectrestriction.PluginName: func(*admissionDeps) (any, error) {
			return subjectrestriction.Plugin{}, nil
		},
		ownerreferences.PluginName: func(d *admissionDeps) (any, error) {
			if d.informers == nil {
				return nil, fmt.Errorf("missing restMapper")
			}
			// Discovery over the loopback client, read on first use and
			// again when a kind is not found (a CRD added since).
			mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(d.informers.client.Discovery()))
			return ownerreferences.New(resourceAuthorizer(d), mapper)
		},
		denyserviceexternalips.PluginName: func(*admissionDeps) (any, error) {
			return denyserviceexternalips.Plugin{}, nil
		},
		eventratelimit.PluginName: newEventRateLimitPlugin,
		persistentvolumeclaimresize.PluginName: func(d *admissionDeps) (any, error) {
			classes := d.informers.factory.Storage().V1().StorageClasses()
			p := persistentvolumeclaimresize.New(classes.Lister())
			p.Synced = classes.Informer().HasSynced
			return p, nil
		},
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

// newEventRateLimitPlugin needs its configuration from
// --admission-control-config-file: without one it refuses to start, with
// upstream's validation error.
func newEventRateLimitPlugin(d *admissionDeps) (any, error) {
	data, err := d.pluginConfig(eventratelimit.PluginName)
	if err != nil {
		return nil, err
	}
	cfg, err := eventratelimit.LoadConfiguration(data)
	if err != nil {
		return nil, fmt.Errorf("couldn't init admission plugin %q: %w", eventratelimit.PluginName, err)
	}
	return eventratelimit.New(cfg, clock.RealClock{}), nil
}
