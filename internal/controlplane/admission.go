package controlplane

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/noderestriction"
	admwebhook "github.com/kapi-dev/kapi/internal/admission/webhook"
	apimetrics "github.com/kapi-dev/kapi/internal/endpoints/metrics"
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
	// serviceResolver reaches webhooks given by service reference (nil
	// means the default <name>.<namespace>.svc).
	serviceResolver *endpointResolver
	// metrics times each plugin and webhook call in kube-apiserver's
	// admission families; nil records nothing.
	metrics *apimetrics.Metrics
	// scheme converts built-in objects for webhooks (matchPolicy Equivalent).
	scheme *runtime.Scheme
	// webhook are the options both webhook plugins share, built once.
	webhook *admwebhook.Options
}

// admissionPluginFactory builds one named plugin of the chain.
type admissionPluginFactory func(d *admissionDeps) (any, error)

// UpstreamAdmissionPlugins are kube-apiserver 1.37's plugins in the order
// it runs them (AllOrderedPlugins): mutating webhooks after the built-in
// mutating plugins, validating webhooks after the built-in validating
// ones, ResourceQuota and AlwaysDeny last.
var UpstreamAdmissionPlugins = []string{
	"AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists",
	"LimitPodHardAntiAffinityTopology", "LimitRanger", "ServiceAccount", "NodeRestriction",
	"TaintNodesByCondition", "AlwaysPullImages", "ImagePolicyWebhook", "PodSecurity",
	"PodNodeSelector", "Priority", "DefaultTolerationSeconds", "PodTolerationRestriction",
	"EventRateLimit", "ExtendedResourceToleration", "DefaultStorageClass",
	"StorageObjectInUseProtection", "PodGroupProtection", "OwnerReferencesPermissionEnforcement",
	"PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval", "CertificateSigning",
	"ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass",
	"DenyServiceExternalIPs", "PodTopologyLabels", "PodGroupWorkloadExists",
	"NodeDeclaredFeatureValidator", "JobValidation", "PodResizeValidator",
	"MutatingAdmissionPolicy", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
	"ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny",
}

// upstreamDefaultOn are the plugins kube-apiserver 1.37 enables when no
// flag says otherwise (everything else is DefaultOffAdmissionPlugins).
var upstreamDefaultOn = []string{
	"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "DefaultStorageClass",
	"PersistentVolumeClaimResize", "DefaultTolerationSeconds", "MutatingAdmissionWebhook",
	"ValidatingAdmissionWebhook", "ResourceQuota", "StorageObjectInUseProtection",
	"PodGroupProtection", "Priority", "TaintNodesByCondition", "RuntimeClass",
	"CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest",
	"CertificateSubjectRestriction", "DefaultIngressClass", "PodSecurity", "PodTopologyLabels",
	"MutatingAdmissionPolicy", "ValidatingAdmissionPolicy", "PodGroupWorkloadExists",
	"NodeDeclaredFeatureValidator", "JobValidation", "PodResizeValidator",
}

// AdmissionPlugins are the plugins kapi implements, in upstream's order:
// a plugin added to any factory table slots into its place by name.
var AdmissionPlugins = implementedAdmissionPlugins()

// DefaultAdmissionPlugins are the plugins on when no flag names them:
// upstream's default set that kapi implements, plus NodeRestriction,
// which kapi serve has always enabled (the kube-apiserver drop-in turns
// it off again, as upstream's default set lacks it).
var DefaultAdmissionPlugins = defaultAdmissionPlugins()

// admissionFactories are all plugin factories by upstream name.
func admissionFactories() map[string]admissionPluginFactory {
	all := builtinAdmissionFactories()
	for name, f := range webhookAdmissionFactories() {
		all[name] = f
	}
	return all
}

func implementedAdmissionPlugins() []string {
	factories := admissionFactories()
	var names []string
	for _, name := range UpstreamAdmissionPlugins {
		if factories[name] != nil {
			names = append(names, name)
		}
	}
	return names
}

func defaultAdmissionPlugins() []string {
	var names []string
	for _, name := range AdmissionPlugins {
		if slices.Contains(upstreamDefaultOn, name) || name == noderestriction.PluginName {
			names = append(names, name)
		}
	}
	return names
}

// ValidateAdmissionPluginNames checks --enable-admission-plugins and
// --disable-admission-plugins: every name must be one of upstream's, and
// enabling one kapi lacks is refused by name because it would promise
// behaviour kapi does not deliver. Disabling one kapi lacks changes
// nothing and is accepted.
func ValidateAdmissionPluginNames(enable, disable []string) []error {
	var errs []error
	for flag, names := range map[string][]string{"enable-admission-plugins": enable, "disable-admission-plugins": disable} {
		for _, p := range names {
			if !slices.Contains(UpstreamAdmissionPlugins, p) {
				errs = append(errs, fmt.Errorf("--%s plugin %q is unknown", flag, p))
			}
		}
	}
	for _, p := range enable {
		if slices.Contains(UpstreamAdmissionPlugins, p) && !slices.Contains(AdmissionPlugins, p) {
			errs = append(errs, fmt.Errorf("--enable-admission-plugins: admission plugin %q is not implemented by kapi (it has %s)", p, strings.Join(AdmissionPlugins, ", ")))
		}
	}
	// Deterministic order for the map iteration above.
	slices.SortStableFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}

// enabledAdmissionPlugins are the plugins of the chain, in order: the
// defaults plus --enable-admission-plugins minus --disable-admission-plugins.
func enabledAdmissionPlugins(s SecurityConfig) ([]string, error) {
	if errs := ValidateAdmissionPluginNames(s.EnableAdmissionPlugins, s.DisableAdmissionPlugins); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var names []string
	for _, p := range AdmissionPlugins {
		on := slices.Contains(DefaultAdmissionPlugins, p) || slices.Contains(s.EnableAdmissionPlugins, p)
		if on && !slices.Contains(s.DisableAdmissionPlugins, p) {
			names = append(names, p)
		}
	}
	return names, nil
}

// admissionChain is the admission chain of the core server.
func admissionChain(d *admissionDeps) (admission.Chain, error) {
	names, err := enabledAdmissionPlugins(d.config.Security)
	if err != nil {
		return nil, err
	}
	if d.pluginConfig == nil {
		configs, err := admission.ReadConfiguration(d.config.Security.AdmissionControlConfigFile, UpstreamAdmissionPlugins)
		if err != nil {
			return nil, err
		}
		d.pluginConfig = func(name string) ([]byte, error) { return configs[name], nil }
	}
	factories := admissionFactories()
	var chain admission.Chain
	for _, name := range names {
		p, err := factories[name](d)
		if err != nil {
			return nil, fmt.Errorf("admission plugin %s: %w", name, err)
		}
		chain = append(chain, p)
	}
	chain = d.metrics.AdmissionPlugins(names, chain)
	return chain, nil
}
