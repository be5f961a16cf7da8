// Package vapstatus is the ValidatingAdmissionPolicy status controller
// (kube-controller-manager's validatingadmissionpolicy-status-controller):
// for each policy generation it type-checks the expressions and applies
// status.observedGeneration and status.typeChecking.expressionWarnings.
package vapstatus

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionregistrationv1apply "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"
	admissionregistrationclient "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// FieldManager is the manager of the status fields the controller owns,
// as upstream names it.
const FieldManager = "validatingadmissionpolicy-status"

// Checker type-checks a policy (validating.TypeChecker).
type Checker interface {
	Check(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning
}

// Controller keeps the status of every ValidatingAdmissionPolicy current.
type Controller struct {
	client  admissionregistrationclient.ValidatingAdmissionPolicyInterface
	lister  admissionregistrationlisters.ValidatingAdmissionPolicyLister
	synced  cache.InformerSynced
	checker Checker
	queue   workqueue.TypedRateLimitingInterface[string]
	logger  *slog.Logger
}

// New watches policies through informer and writes their status through
// client.
func New(informer admissionregistrationinformers.ValidatingAdmissionPolicyInformer, client admissionregistrationclient.ValidatingAdmissionPolicyInterface, checker Checker, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		client:  client,
		lister:  informer.Lister(),
		checker: checker,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "validatingadmissionpolicy-status"}),
		logger: logger,
	}
	reg, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	})
	if err != nil {
		return nil, err
	}
	c.synced = reg.HasSynced
	return c, nil
}

func (c *Controller) enqueue(obj any) {
	if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok {
		c.queue.Add(p.Name)
	}
}

// Run processes policies until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for c.next(ctx) {
	}
}

func (c *Controller) next(ctx context.Context) bool {
	name, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(name)
	if err := c.sync(ctx, name); err != nil {
		c.logger.Error("syncing policy status", "policy", name, "err", err)
		c.queue.AddRateLimited(name)
		return true
	}
	c.queue.Forget(name)
	return true
}

func (c *Controller) sync(ctx context.Context, name string) error {
	p, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Generation <= p.Status.ObservedGeneration {
		return nil
	}
	warnings := c.checker.Check(p)
	wc := make([]*admissionregistrationv1apply.ExpressionWarningApplyConfiguration, 0, len(warnings))
	for _, w := range warnings {
		wc = append(wc, admissionregistrationv1apply.ExpressionWarning().WithFieldRef(w.FieldRef).WithWarning(w.Warning))
	}
	apply := admissionregistrationv1apply.ValidatingAdmissionPolicy(p.Name).
		WithStatus(admissionregistrationv1apply.ValidatingAdmissionPolicyStatus().
			WithObservedGeneration(p.Generation).
			WithTypeChecking(admissionregistrationv1apply.TypeChecking().WithExpressionWarnings(wc...)))
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := c.client.ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
		return fmt.Errorf("applying status: %w", err)
	}
	return nil
}
