package controlplane

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/admission/policy/validating"
	apischema "github.com/kapi-dev/kapi/internal/apiextensions/schema"
	"github.com/kapi-dev/kapi/internal/apis/install"
	"github.com/kapi-dev/kapi/internal/controllers/vapstatus"
)

// startValidatingAdmissionPolicyStatusController runs the controller that
// type-checks each policy generation against the built-in kinds it
// matches and applies the warnings to the policy's status. Custom kinds
// are not checked (their schemas are not resolved yet).
func startValidatingAdmissionPolicyStatusController(ctx context.Context, cc *controllerContext) error {
	cfg := rest.CopyConfig(cc.loopback)
	cfg.UserAgent = "kapi/validatingadmissionpolicy-status-controller"
	cs, err := newLazyClientset(cfg)
	if err != nil {
		return err
	}
	// The built-in kinds' scheme and schemas (~100 KB) are built for the
	// first policy to check: most servers have none.
	schemas := sync.OnceValue(func() *policy.BuiltinSchemas {
		scheme := runtime.NewScheme()
		if err := install.InstallAll(scheme); err != nil {
			// The server's own scheme comes from the same install, so
			// this does not happen; with no kinds, nothing is checked.
			cc.logger.Error("building the built-in kinds' scheme", "err", err)
			scheme = runtime.NewScheme()
		}
		return policy.NewBuiltinSchemas(scheme)
	})
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	checker := &validating.TypeChecker{
		Schema: func(gvk schema.GroupVersionKind) *apischema.Structural { return schemas().Schema(gvk) },
		KindsFor: func(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
			kinds, err := mapper.KindsFor(gvr)
			if meta.IsNoMatchError(err) {
				mapper.Reset()
				kinds, err = mapper.KindsFor(gvr)
			}
			return kinds, err
		},
	}
	informer := cc.informers.factory.Admissionregistration().V1().ValidatingAdmissionPolicies()
	c, err := vapstatus.New(informer, cs.AdmissionregistrationV1().ValidatingAdmissionPolicies(), checker, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx)
	return nil
}
