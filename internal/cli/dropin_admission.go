package cli

import (
	"fmt"
	"slices"

	"github.com/kapi-dev/kapi/internal/admission/plugins/noderestriction"
	"github.com/kapi-dev/kapi/internal/controlplane"
)

// upstreamAdmissionPlugins are the admission plugin names kube-apiserver
// knows (1.37), so the drop-in can tell a name kapi lacks from a typo.
var upstreamAdmissionPlugins = []string{
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

// mapAdmissionPlugins turns upstream plugin names into kapi's. Disabling
// a plugin kapi lacks changes nothing kapi does, so it is accepted;
// enabling one would promise behaviour kapi lacks, so it is refused by
// name. NodeRestriction is off unless enabled, as upstream's default list
// does not hold it.
func (o *kubeAPIServerOptions) mapAdmissionPlugins() error {
	for _, p := range append(slices.Clone(o.EnableAdmissionPlugins), o.DisableAdmissionPlugins...) {
		if !slices.Contains(upstreamAdmissionPlugins, p) {
			return fmt.Errorf("admission plugin %q is unknown", p)
		}
	}
	for _, p := range o.EnableAdmissionPlugins {
		if !slices.Contains(controlplane.AdmissionPlugins, p) {
			return fmt.Errorf("--enable-admission-plugins: admission plugin %q is not implemented by kapi (it has %v)", p, controlplane.AdmissionPlugins)
		}
	}
	var disable []string
	for _, p := range o.DisableAdmissionPlugins {
		if slices.Contains(controlplane.AdmissionPlugins, p) {
			disable = append(disable, p)
		}
	}
	if !slices.Contains(o.EnableAdmissionPlugins, noderestriction.PluginName) && !slices.Contains(disable, noderestriction.PluginName) {
		disable = append(disable, noderestriction.PluginName)
	}
	o.DisableAdmissionPlugins = disable
	return nil
}
