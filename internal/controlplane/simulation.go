package controlplane

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/simulator/nodes"
	"github.com/kapi-dev/kapi/internal/simulator/pods"
	"github.com/kapi-dev/kapi/internal/version"
)

// simulationHook is the post-start hook that runs --simulated-nodes.
const simulationHook = "kapi-simulated-nodes"

// simulatedKubelet is the user agent the simulated kubelets write with.
const simulatedKubelet = "simulated-kubelet"

// addSimulationHook registers the hook that registers the simulated nodes
// (the server is not ready before they are Ready and schedulable) and
// runs their kubelets and their Pods' lifecycle, when
// Config.SimulatedNodes > 0. Like kubelets, the simulation runs on every
// server, not behind the controllers' leader lease.
func addSimulationHook(s *server.GenericServer, c *Config, deps controllerDeps) error {
	if c.SimulatedNodes < 0 || c.SimulatedNodes > nodes.MaxNodes {
		return fmt.Errorf("simulated nodes: %d must be between 0 and %d", c.SimulatedNodes, nodes.MaxNodes)
	}
	if c.SimulatedNodes == 0 {
		return nil
	}
	return s.AddPostStartHook(simulationHook, func(hc server.PostStartHookContext) error {
		recorders := &eventRecorders{}
		if err := recorders.init(hc.Context, hc.LoopbackClientConfig); err != nil {
			return err
		}
		cc := &controllerContext{
			events:    recorders,
			config:    c,
			loopback:  hc.LoopbackClientConfig,
			informers: deps.informers,
			logger:    deps.logger.With("controller", simulationHook),
			clock:     c.controllerClock(simulationHook),
			serverCtx: hc.Context,
		}
		return startSimulation(hc.Context, cc)
	})
}

// startSimulation registers the nodes, then runs the node and pod
// simulators and the scheduler until ctx ends.
func startSimulation(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client(simulatedKubelet)
	if err != nil {
		return err
	}
	core := cc.informers.factory.Core().V1()
	sim, err := nodes.New(client, core.Nodes(), nodes.Config{
		Count:          cc.config.SimulatedNodes,
		Template:       cc.config.SimulatedNodeTemplate,
		KubeletVersion: version.Get().GitVersion,
		Clock:          cc.tickerClock(),
		Logger:         cc.logger,
	})
	if err != nil {
		return err
	}
	podSim, err := pods.New(client, core.Pods(), core.Nodes(), cc.tickerClock(), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	if err := sim.Register(ctx); err != nil {
		return fmt.Errorf("registering simulated nodes: %w", err)
	}
	go sim.Run(ctx)
	go podSim.Run(ctx, 4)
	// Without kube-scheduler nothing binds Pods to the simulated nodes.
	return startScheduler(ctx, cc)
}
