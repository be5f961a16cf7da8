package controlplane

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// TestResourceAdmissionFactories builds every plugin of the file by its
// upstream name, and checks the ones that refuse to start without what
// they need.
func TestResourceAdmissionFactories(t *testing.T) {
	client := fake.NewClientset()
	allowAll := authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
	eventConfig := []byte("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 10\n  burst: 10\n")
	deps := func(authz bool, config []byte) *admissionDeps {
		d := &admissionDeps{
			informers:    &sharedInformers{client: client, factory: newFanoutFactory(informers.NewSharedInformerFactory(client, 0), nil)},
			pluginConfig: func(string) ([]byte, error) { return config, nil },
		}
		if authz {
			d.authz = &authorization{authorizer: allowAll}
		}
		return d
	}
	want := []string{
		"ResourceQuota", "DefaultStorageClass", "DefaultIngressClass", "StorageObjectInUseProtection", "PersistentVolumeClaimResize",
		"CertificateApproval", "CertificateSigning", "CertificateSubjectRestriction", "ClusterTrustBundleAttest",
		"OwnerReferencesPermissionEnforcement", "DenyServiceExternalIPs", "EventRateLimit",
	}
	factories := resourceAdmissionFactories()
	if len(factories) != len(want) {
		t.Errorf("%d factories, want %d", len(factories), len(want))
	}
	for _, name := range want {
		f, ok := factories[name]
		if !ok {
			t.Errorf("no factory for %s", name)
			continue
		}
		var cfg []byte
		if name == "EventRateLimit" {
			cfg = eventConfig
		}
		p, err := f(deps(true, cfg))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		_, mutates := p.(admission.MutationInterface)
		_, validates := p.(admission.ValidationInterface)
		if !mutates && !validates {
			t.Errorf("%s is neither a mutating nor a validating plugin", name)
		}
	}

	refusals := []struct {
		name    string
		deps    *admissionDeps
		message string
	}{
		{"CertificateApproval", deps(false, nil), "CertificateApproval requires an authorizer"},
		{"CertificateSigning", deps(false, nil), "CertificateSigning requires an authorizer"},
		{"ClusterTrustBundleAttest", deps(false, nil), "ClusterTrustBundleAttest requires an authorizer"},
		{"OwnerReferencesPermissionEnforcement", deps(false, nil), "missing authorizer"},
		{"EventRateLimit", deps(true, nil), `couldn't init admission plugin "EventRateLimit": limits: Invalid value: null: must not be empty`},
		{"ResourceQuota", deps(true, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- matchContains: [x]\n")),
			`admission plugin "ResourceQuota": limitedResources[0].resource: Required value`},
	}
	for _, r := range refusals {
		_, err := factories[r.name](r.deps)
		if err == nil || !strings.Contains(err.Error(), r.message) {
			t.Errorf("%s: got %v, want %s", r.name, err, r.message)
		}
	}
}
