package controlplane

import (
	"context"
	"log/slog"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/server"
)

// controllerContext is what an in-process controller is started with.
type controllerContext struct {
	config *Config
	// loopback reaches this server as a privileged client; a controller
	// copies it and sets its own user agent.
	loopback *rest.Config
	// informers is the server's shared factory; a controller asks for its
	// informers, then calls informers.factory.Start itself.
	informers *sharedInformers
	logger    *slog.Logger

	// rootCA is the PEM bundle that verifies kapi's serving certificate:
	// what kube-controller-manager's --root-ca-file would hold. It is
	// published as kube-root-ca.crt and put into legacy token secrets.
	rootCA []byte
	// events records Events through events.k8s.io/v1 for every
	// controller, rate-limited and aggregated by client-go.
	events *eventRecorders
	// clock is the time controllers act on; tests replace it.
	clock clock.Clock
	// tokenSecrets is the informer of token Secrets two controllers share.
	tokenSecrets *tokenSecrets
	// bootstrapTokens is the informer of bootstrap token Secrets the
	// bootstrap signer and the token cleaner share.
	bootstrapTokens *bootstrapTokens
	// serverCtx ends when the server shuts down. A controller's own ctx
	// ends earlier when this server loses the leader lease; informers
	// shared beyond one controller run on serverCtx.
	serverCtx context.Context
}

// informerContext is the context shared informers run on: the server's,
// which outlives a leadership term; ctx when none is set.
func (cc *controllerContext) informerContext(ctx context.Context) context.Context {
	if cc.serverCtx != nil {
		return cc.serverCtx
	}
	return ctx
}

// client is the controller's own clientset (hookClient).
func (cc *controllerContext) client(userAgent string) (kubernetes.Interface, error) {
	return hookClient(cc.loopback, userAgent)
}

// recorder is the event recorder a controller reports as.
func (cc *controllerContext) recorder(component string) events.EventRecorder {
	return cc.events.recorder(component)
}

// startInformers starts the informers a controller asked for after the
// shared start hook ran.
func (cc *controllerContext) startInformers(ctx context.Context) {
	cc.informers.factory.StartWithContext(cc.informerContext(ctx))
}

// inProcessController is one control loop kapi runs, named as
// kube-controller-manager names it. start must return promptly; the loop
// runs until ctx ends.
type inProcessController struct {
	name  string
	start func(ctx context.Context, cc *controllerContext) error
}

// inProcessControllers are the control loops in the order they start.
func inProcessControllers() []inProcessController {
	return []inProcessController{
		{name: "serviceaccount-token-controller", start: startServiceAccountTokenController},
		{name: "namespace-controller", start: startNamespaceController},
		{name: "resourcequota-controller", start: startResourceQuotaController},
		{name: "validatingadmissionpolicy-status-controller", start: startValidatingAdmissionPolicyStatusController},
		{name: "garbage-collector-controller", start: startGarbageCollector},
		{name: "serviceaccount-controller", start: startServiceAccountController},
		{name: "root-ca-certificate-publisher-controller", start: startRootCAPublisher},
		{name: "legacy-serviceaccount-token-cleaner-controller", start: startLegacyTokenCleaner},
		{name: "certificatesigningrequest-approving-controller", start: startCSRApprovingController},
		{name: "certificatesigningrequest-signing-controller", start: startCSRSigningController},
		{name: "certificatesigningrequest-cleaner-controller", start: startCSRCleanerController},
		{name: "job-controller", start: startJobController},
		{name: "cronjob-controller", start: startCronJobController},
		{name: "ttl-after-finished-controller", start: startTTLAfterFinishedController},
		{name: "statefulset-controller", start: startStatefulSetController},
		{name: "daemonset-controller", start: startDaemonSetController},
		{name: "disruption-controller", start: startDisruptionController},
		{name: "endpoints-controller", start: startEndpointsController},
		{name: "endpointslice-controller", start: startEndpointSliceController},
		{name: "endpointslice-mirroring-controller", start: startEndpointSliceMirroringController},
		{name: "bootstrap-signer-controller", start: startBootstrapSigner},
		{name: "token-cleaner-controller", start: startTokenCleaner},
		{name: "pod-garbage-collector-controller", start: startPodGC},
		{name: "replicationcontroller-controller", start: startReplicationController},
		{name: "replicaset-controller", start: startReplicaSetController},
		{name: "deployment-controller", start: startDeploymentController},
		{name: "resourceclaim-controller", start: startResourceClaimController},
		{name: "horizontal-pod-autoscaler-controller", start: startHorizontalPodAutoscalerController},
	}
}

// controllerDeps are what the controller hooks need besides the config.
type controllerDeps struct {
	informers *sharedInformers
	logger    *slog.Logger
	rootCA    []byte
}

// addControllerHooks starts each controller enabled by --controllers in a
// post-start hook named start-<name>, so /readyz?verbose shows each one.
func addControllerHooks(s *server.GenericServer, c *Config, deps controllerDeps) error {
	enabled, err := enabledControllers(c.Controllers)
	if err != nil {
		return err
	}
	recorders := &eventRecorders{}
	secrets := &tokenSecrets{}
	bootTokens := &bootstrapTokens{}
	gate := newLeaderGate(c, deps.logger)
	if gate != nil {
		if err := s.AddPreShutdownHook("release-controller-leader-lease", gate.awaitRelease); err != nil {
			return err
		}
	}
	for _, ctrl := range inProcessControllers() {
		if !enabled[ctrl.name] {
			continue
		}
		ctrl := ctrl
		if err := s.AddPostStartHook("start-"+ctrl.name, func(hc server.PostStartHookContext) error {
			start := time.Now()
			if err := recorders.init(hc.Context, hc.LoopbackClientConfig); err != nil {
				return err
			}
			logger := deps.logger.With("controller", ctrl.name)
			return gate.run(hc, ctrl.name, func(ctx context.Context) error {
				defer func() { logger.Debug("controller started", "took", time.Since(start)) }()
				return ctrl.start(ctx, &controllerContext{
					config:          c,
					loopback:        hc.LoopbackClientConfig,
					informers:       deps.informers,
					logger:          logger,
					rootCA:          deps.rootCA,
					events:          recorders,
					clock:           c.controllerClock(ctrl.name),
					tokenSecrets:    secrets,
					bootstrapTokens: bootTokens,
					serverCtx:       hc.Context,
				})
			})
		}); err != nil {
			return err
		}
	}
	return nil
}

func startNamespaceController(ctx context.Context, cc *controllerContext) error {
	c, err := newNamespaceController(cc.loopback, cc.informers.factory.Core().V1().Namespaces(), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx)
	return nil
}
