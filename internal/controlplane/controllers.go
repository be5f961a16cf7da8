package controlplane

import (
	"context"
	"log/slog"

	"k8s.io/client-go/rest"

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
		{name: "namespace-controller", start: startNamespaceController},
		{name: "resourcequota-controller", start: startResourceQuotaController},
		{name: "validatingadmissionpolicy-status-controller", start: startValidatingAdmissionPolicyStatusController},
		{name: "garbage-collector-controller", start: startGarbageCollector},
	}
}

// addControllerHooks starts each controller in a post-start hook named
// start-<name>, so /readyz?verbose shows each one.
func addControllerHooks(s *server.GenericServer, c *Config, si *sharedInformers, logger *slog.Logger) error {
	for _, ctrl := range inProcessControllers() {
		ctrl := ctrl
		if err := s.AddPostStartHook("start-"+ctrl.name, func(hc server.PostStartHookContext) error {
			return ctrl.start(hc.Context, &controllerContext{
				config:    c,
				loopback:  hc.LoopbackClientConfig,
				informers: si,
				logger:    logger.With("controller", ctrl.name),
			})
		}); err != nil {
			return err
		}
	}
	return nil
}

func startNamespaceController(ctx context.Context, cc *controllerContext) error {
	c, err := newNamespaceController(cc.loopback, cc.logger)
	if err != nil {
		return err
	}
	go c.Run(ctx)
	return nil
}
