// Package clusterroleaggregation keeps every ClusterRole that has an
// aggregationRule holding the union of the rules of the ClusterRoles its
// selectors match, as kube-controller-manager's clusterrole-aggregation
// controller does (this is how admin, edit and view pick up the rules of
// roles labelled rbac.authorization.k8s.io/aggregate-to-*). kapi runs it
// in-process.
package clusterroleaggregation

import (
	"context"
	"log/slog"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// FieldManager owns the aggregated rules, as upstream's controller does.
const FieldManager = "clusterrole-aggregation-controller"

// Controller writes the rules of aggregated cluster roles.
type Controller struct {
	// Logger receives sync failures; set it before Run. Nil discards.
	Logger *slog.Logger
	// ListRoles, when set, is how SyncAll reads the cluster roles from
	// the server (a server reads its own storage in-process); else
	// through the client.
	ListRoles func(ctx context.Context) ([]rbacv1.ClusterRole, error)

	cs     kubernetes.Interface
	lister rbaclisters.ClusterRoleLister
	synced cache.InformerSynced
	// syncedCh closes when the informer synced: the pass before ready
	// waits on it rather than polling synced every 100 ms.
	syncedCh cache.DoneChecker
	queue    workqueue.TypedRateLimitingInterface[string]
}

// New returns a controller updating cluster roles through cs and reading
// them from clusterRoles, whose factory the caller starts. It registers its
// event handler on the informer now.
func New(cs kubernetes.Interface, clusterRoles rbacinformers.ClusterRoleInformer) *Controller {
	c := &Controller{
		cs:     cs,
		lister: clusterRoles.Lister(),
		synced: clusterRoles.Informer().HasSynced,

		syncedCh: clusterRoles.Informer().HasSyncedChecker(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "ClusterRoleAggregator"},
		),
	}
	// Which aggregated roles a change affects depends on their selectors;
	// cluster roles are few, so every change re-checks all of them.
	enqueue := func(any) { c.enqueueAggregated() }
	_, _ = clusterRoles.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	return c
}

// Run syncs with workers goroutines until ctx is done, then waits for them.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return
	}
	c.enqueueAggregated()
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
}

func (c *Controller) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

func (c *Controller) enqueueAggregated() {
	roles, err := c.lister.List(labels.Everything())
	if err != nil {
		c.logger().Error("listing cluster roles", "err", err)
		return
	}
	for _, r := range roles {
		if r.AggregationRule != nil {
			c.queue.Add(r.Name)
		}
	}
}

// processNext syncs one role; false means the queue is shut down.
func (c *Controller) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	if err := c.sync(ctx, name); err != nil {
		c.logger().Warn("aggregating cluster role", "clusterRole", name, "err", err)
		c.queue.AddRateLimited(name)
		return true
	}
	c.queue.Forget(name)
	return true
}

// sync writes the rules the aggregation rule of the named role gathers,
// when they differ from its current rules.
func (c *Controller) sync(ctx context.Context, name string) error {
	role, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if role.AggregationRule == nil {
		return nil
	}
	rules, err := c.aggregate(role)
	if err != nil {
		return err
	}
	// Semantic equality: no rules and an empty list are the same.
	if apiequality.Semantic.DeepEqual(rules, role.Rules) {
		return nil
	}
	err = c.apply(ctx, name, rules)
	if apierrors.IsUnsupportedMediaType(err) {
		// A server without server-side apply takes a plain update.
		err = c.update(ctx, role, rules)
	}
	return err
}

func (c *Controller) apply(ctx context.Context, name string, rules []rbacv1.PolicyRule) error {
	_, err := c.cs.RbacV1().ClusterRoles().Apply(ctx, ApplyConfiguration(name, rules), metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	return err
}

// ApplyConfiguration is what the controller applies, with force, to give
// the named role rules.
func ApplyConfiguration(name string, rules []rbacv1.PolicyRule) *rbacv1ac.ClusterRoleApplyConfiguration {
	cfg := rbacv1ac.ClusterRole(name)
	for _, r := range rules {
		cfg.WithRules(rbacv1ac.PolicyRule().
			WithVerbs(r.Verbs...).
			WithAPIGroups(r.APIGroups...).
			WithResources(r.Resources...).
			WithResourceNames(r.ResourceNames...).
			WithNonResourceURLs(r.NonResourceURLs...))
	}
	return cfg
}

func (c *Controller) update(ctx context.Context, role *rbacv1.ClusterRole, rules []rbacv1.PolicyRule) error {
	updated := role.DeepCopy()
	updated.Rules = nil
	for _, r := range rules {
		updated.Rules = append(updated.Rules, *r.DeepCopy())
	}
	_, err := c.cs.RbacV1().ClusterRoles().Update(ctx, updated, metav1.UpdateOptions{})
	return err
}
