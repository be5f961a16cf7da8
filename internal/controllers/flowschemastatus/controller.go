// Package flowschemastatus keeps the Dangling condition of every
// FlowSchema, as kube-apiserver's API Priority and Fairness config
// controller does: True with reason NotFound while the referenced
// PriorityLevelConfiguration does not exist, False with reason Found once
// it does. The condition is written by server-side apply of the status
// with upstream's field manager, and only when status, reason or message
// change.
package flowschemastatus

import (
	"context"
	"fmt"
	"log/slog"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	flowcontrolapply "k8s.io/client-go/applyconfigurations/flowcontrol/v1"
	flowcontrolinformers "k8s.io/client-go/informers/flowcontrol/v1"
	flowcontrolclient "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	flowcontrollisters "k8s.io/client-go/listers/flowcontrol/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// FieldManager owns the condition, as upstream names it.
const FieldManager = "api-priority-and-fairness-config-consumer-v1"

// Controller watches flow schemas and priority levels.
type Controller struct {
	client  flowcontrolclient.FlowSchemaInterface
	schemas flowcontrollisters.FlowSchemaLister
	levels  flowcontrollisters.PriorityLevelConfigurationLister
	synced  []cache.InformerSynced
	queue   workqueue.TypedRateLimitingInterface[string]
	clock   clock.PassiveClock
	logger  *slog.Logger
}

// New registers handlers on the informers; Run processes the queue.
func New(schemas flowcontrolinformers.FlowSchemaInformer, levels flowcontrolinformers.PriorityLevelConfigurationInformer,
	client flowcontrolclient.FlowSchemaInterface, clk clock.PassiveClock, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		client:  client,
		schemas: schemas.Lister(),
		levels:  levels.Lister(),
		synced:  []cache.InformerSynced{schemas.Informer().HasSynced, levels.Informer().HasSynced},
		queue:   worker.NewQueue("flowschema_status"),
		clock:   clk,
		logger:  logger,
	}
	// A priority level that appears or goes changes the condition of the
	// schemas naming it.
	onLevel := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.enqueueReferrers(key)
		}
	}
	err := worker.AddHandlers(
		worker.Handler{Informer: schemas.Informer(), Funcs: worker.EnqueueAll(c.queue)},
		worker.Handler{Informer: levels.Informer(), Funcs: cache.ResourceEventHandlerFuncs{AddFunc: onLevel, DeleteFunc: onLevel}},
	)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) enqueueReferrers(level string) {
	all, err := c.schemas.List(labels.Everything())
	if err != nil {
		return
	}
	for _, fs := range all {
		if fs.Spec.PriorityLevelConfiguration.Name == level {
			c.queue.Add(fs.Name)
		}
	}
}

// Run syncs with one worker until ctx ends (upstream writes statuses from
// one goroutine too).
func (c *Controller) Run(ctx context.Context) {
	worker.RunSynced(ctx, c.queue, 1, c.logger, c.synced, c.sync)
}

// Desired is the Dangling condition for a schema naming level, without
// its transition time.
func Desired(level string, found bool) flowcontrolv1.FlowSchemaCondition {
	if !found {
		return flowcontrolv1.FlowSchemaCondition{
			Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionTrue, Reason: "NotFound",
			Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", level),
		}
	}
	return flowcontrolv1.FlowSchemaCondition{
		Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse, Reason: "Found",
		Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", level),
	}
}

func (c *Controller) sync(ctx context.Context, name string) error {
	fs, err := c.schemas.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	level := fs.Spec.PriorityLevelConfiguration.Name
	_, err = c.levels.Get(level)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	want := Desired(level, err == nil)
	if cur := current(fs); cur != nil && cur.Status == want.Status && cur.Reason == want.Reason && cur.Message == want.Message {
		return nil
	}
	cond := flowcontrolapply.FlowSchemaCondition().
		WithType(want.Type).WithStatus(want.Status).WithReason(want.Reason).WithMessage(want.Message).
		WithLastTransitionTime(metav1.NewTime(c.clock.Now()))
	apply := flowcontrolapply.FlowSchema(name).WithStatus(flowcontrolapply.FlowSchemaStatus().WithConditions(cond))
	_, err = c.client.ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return fmt.Errorf("applying the Dangling condition of FlowSchema %s: %w", name, err)
	}
	c.logger.Debug("set FlowSchema Dangling condition", "flowSchema", name, "status", want.Status, "reason", want.Reason)
	return nil
}

func current(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaCondition {
	for i := range fs.Status.Conditions {
		if fs.Status.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Status.Conditions[i]
		}
	}
	return nil
}
