package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/abac"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/modes"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/node"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/webhook"
	"github.com/kapi-dev/kapi/internal/controllers/clusterroleaggregation"
	"github.com/kapi-dev/kapi/internal/controllers/rbacbootstrap"
	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	apimetrics "github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	registryrest "github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/server"
)

// authorization is the authorizer chain of --authorization-mode and what
// feeds it: informers over the loopback client for RBAC and Node.
type authorization struct {
	modes      []string
	authorizer authorizer.Authorizer
	rules      authorizer.RuleResolver
	// rbac is the RBAC authorizer when RBAC is a mode: the escalation
	// checks of role and binding writes ask it.
	rbac      *rbac.Authorizer
	client    kubernetes.Interface
	informers informers.SharedInformerFactory
	// lendable are the authorizer's informers, which the shared factory
	// hands out as its own (fanoutFactory.lend).
	lendable []lendableInformer
	// seed writes the bootstrap data (the RBAC policy, the APF
	// configuration) into fresh storage before the server serves; nil
	// when it does not run. It lives here because authorization depends
	// on it.
	seed *bootstrapSeed
	// seedEnv is where seed writes; nil when it does not run. The
	// aggregator seeds its APIServices through it too (apiServiceSeed).
	seedEnv *seedEnv
	// apiServiceSeed writes the local APIServices; nil when it does not
	// run.
	apiServiceSeed *bootstrapSeed
}

// awaitSeed waits for the bootstrap seeds to end, if they run.
func (a *authorization) awaitSeed() {
	for _, s := range []*bootstrapSeed{a.seed, a.apiServiceSeed} {
		if s != nil {
			<-s.done
		}
	}
}

// newAuthorization builds the modes in order, behind the system:masters
// bypass, over informers that start with the server; m counts each mode's
// decisions.
func newAuthorization(c *Config, loopback *restclient.Config, m *apimetrics.Metrics, local *inprocess.Resources) (*authorization, error) {
	sec := &c.Security
	a := &authorization{modes: sec.authorizationModes()}
	if err := modes.Validate(a.modes, sec.AuthorizationPolicyFile, sec.AuthorizationWebhookConfigFile); err != nil {
		return nil, err
	}
	// Protobuf, as the other loopback clients: the informers' first lists
	// of the whole RBAC policy are on the ready path, and JSON costs
	// several times the CPU to encode and decode. The user agent stays the
	// default one, whose manager the bootstrap policy's fields record.
	cfg := restclient.CopyConfig(loopback)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	a.client = cs
	a.informers = informers.NewSharedInformerFactory(cs, 0)
	preferInProcessTyped(a.informers, local, "", nil,
		&rbacv1.Role{}, &rbacv1.RoleBinding{}, &rbacv1.ClusterRole{}, &rbacv1.ClusterRoleBinding{},
		&corev1.Pod{}, &corev1.PersistentVolume{})
	mc := modes.Config{Modes: a.modes, Instrument: m.AuthorizerDecisions}
	if slices.Contains(a.modes, modes.ModeRBAC) {
		r := a.informers.Rbac().V1()
		if a.rbac, err = rbac.NewFromInformers(r); err != nil {
			return nil, err
		}
		mc.RBAC = a.rbac
		gv := rbacv1.SchemeGroupVersion
		a.lendable = append(a.lendable,
			lendableInformer{gv.WithResource("roles"), &rbacv1.Role{}, r.Roles().Informer()},
			lendableInformer{gv.WithResource("rolebindings"), &rbacv1.RoleBinding{}, r.RoleBindings().Informer()},
			lendableInformer{gv.WithResource("clusterroles"), &rbacv1.ClusterRole{}, r.ClusterRoles().Informer()},
			lendableInformer{gv.WithResource("clusterrolebindings"), &rbacv1.ClusterRoleBinding{}, r.ClusterRoleBindings().Informer()})
	}
	if slices.Contains(a.modes, modes.ModeNode) {
		core := a.informers.Core().V1()
		mc.Node = node.New(core.Pods(), core.PersistentVolumes(), bootstrappolicy.NodeRules())
		gv := corev1.SchemeGroupVersion
		a.lendable = append(a.lendable,
			lendableInformer{gv.WithResource("pods"), &corev1.Pod{}, core.Pods().Informer()},
			lendableInformer{gv.WithResource("persistentvolumes"), &corev1.PersistentVolume{}, core.PersistentVolumes().Informer()})
	}
	if slices.Contains(a.modes, modes.ModeABAC) {
		ab, err := abac.NewFromFile(sec.AuthorizationPolicyFile)
		if err != nil {
			return nil, fmt.Errorf("--authorization-policy-file: %w", err)
		}
		mc.ABAC = ab
	}
	if slices.Contains(a.modes, modes.ModeWebhook) {
		authorized, unauthorized := sec.AuthorizationWebhookCacheAuthorizedTTL, sec.AuthorizationWebhookCacheUnauthTTL
		if authorized == 0 && unauthorized == 0 {
			authorized, unauthorized = webhook.DefaultAuthorizedTTL, webhook.DefaultUnauthorizedTTL
		}
		wh, err := webhook.New(sec.AuthorizationWebhookConfigFile, authorized, unauthorized, c.webhookTransport())
		if err != nil {
			return nil, fmt.Errorf("--authorization-webhook-config-file: %w", err)
		}
		mc.Webhook = wh
	}
	a.authorizer, a.rules, err = modes.New(mc)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// lendableInformer is one informer the authorizer runs.
type lendableInformer struct {
	gvr      schema.GroupVersionResource
	obj      runtime.Object
	informer cache.SharedIndexInformer
}

// lendInformers gives the shared factory the authorizer's informers, which
// the hook start-authorization-informers starts, so that the controllers
// and admission read the same caches rather than list and watch RBAC,
// pods and persistent volumes a second time.
func (a *authorization) lendInformers(si *sharedInformers) {
	for _, l := range a.lendable {
		si.factory.lend(l.gvr, l.obj, l.informer)
	}
}

// addHooks starts the informers, reconciles the RBAC bootstrap policy
// and runs the cluster role aggregation controller, as upstream's
// post-start hooks of the same names do.
func (a *authorization) addHooks(s *server.GenericServer, lookup func(group, resource string) registryrest.Storage, logger *slog.Logger) error {
	// The controller's informer must be known to the factory before it
	// starts.
	var aggregation *clusterroleaggregation.Controller
	if a.rbac != nil {
		aggregation = clusterroleaggregation.New(a.client, a.informers.Rbac().V1().ClusterRoles())
		aggregation.Logger = logger.With("controller", "clusterrole-aggregation")
		// Its pass before ready reads the roles in-process (a consistent
		// read of the watch cache) instead of a LIST over loopback, unless
		// lookup is nil (inProcessLookup).
		var lister registryrest.Lister
		if lookup != nil {
			lister, _ = lookup(rbacv1.GroupName, "clusterroles").(registryrest.Lister)
		}
		if lister != nil {
			aggregation.ListRoles = func(ctx context.Context) ([]rbacv1.ClusterRole, error) {
				obj, err := lister.List(request.WithNamespace(ctx, ""), &metainternalversion.ListOptions{})
				if err != nil {
					return nil, err
				}
				list, ok := obj.(*rbacv1.ClusterRoleList)
				if !ok {
					return nil, fmt.Errorf("listing cluster roles: unexpected %T", obj)
				}
				return list.Items, nil
			}
		}
	}
	if err := s.AddPostStartHook("start-authorization-informers", func(hc server.PostStartHookContext) error {
		a.informers.StartWithContext(hc.Context)
		ctx, cancel := context.WithTimeout(hc.Context, time.Minute)
		defer cancel()
		for typ, ok := range a.informers.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return fmt.Errorf("the %v informer did not sync", typ)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if a.rbac == nil {
		return nil
	}
	// The aggregation controller starts from the complete bootstrap policy.
	bootstrapped := make(chan struct{})
	if err := s.AddPostStartHook("rbac/bootstrap-roles", func(hc server.PostStartHookContext) error {
		seeded, err := a.seed.wait(hc.Context)
		switch {
		case err != nil && !seeded:
			logger.Warn("writing the RBAC bootstrap policy into storage failed; reconciling it through the API", "err", err)
		case err != nil:
			// The system namespaces or the default ServiceCIDR: their
			// own hooks write them.
			logger.Warn("writing the bootstrap data into storage failed in part; the post-start hooks write the rest", "err", err)
		}
		if !seeded {
			if err := rbacbootstrap.Reconcile(hc.Context, a.client); err != nil {
				return err
			}
		}
		close(bootstrapped)
		return nil
	}); err != nil {
		return err
	}
	return s.AddPostStartHook("start-cluster-role-aggregation-controller", func(hc server.PostStartHookContext) error {
		select {
		case <-bootstrapped:
		case <-hc.Context.Done():
			return hc.Context.Err()
		}
		// One pass before ready: admin, edit and view are complete when a
		// client first sees the server.
		if err := retry(hc.Context, func() error { return aggregation.SyncAll(hc.Context) }); err != nil {
			return err
		}
		go aggregation.Run(hc.Context, 1)
		return nil
	})
}
