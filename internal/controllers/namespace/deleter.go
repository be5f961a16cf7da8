package namespace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
)

// finalizerEstimate is how long upstream assumes objects held by
// finalizers take to go, in seconds; it bounds the retry interval.
const finalizerEstimate = int64(15)

// remainingError says that content is still being removed and when to
// look again at the latest.
type remainingError struct{ estimate int64 }

func (e *remainingError) Error() string {
	return fmt.Sprintf("some content remains in the namespace, estimate %d seconds before it is removed", e.estimate)
}

// sync moves one terminating namespace a step towards deletion, as
// upstream's namespaced resources deleter: Terminating phase, then every
// namespaced resource served now emptied, the conditions updated, and the
// "kubernetes" finalizer removed once nothing remains (the registry
// deletes the namespace when its last finalizer goes).
func (c *Controller) sync(ctx context.Context, name string) error {
	ns, err := c.namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp == nil {
		return nil
	}
	ns, err = c.retryOnConflict(ctx, ns, c.ensureTerminating)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return nil
	}
	estimate, err := c.deleteAllContent(ctx, ns)
	if err != nil {
		return err
	}
	if estimate > 0 {
		return &remainingError{estimate}
	}
	_, err = c.retryOnConflict(ctx, ns, c.finalize)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// retryOnConflict applies fn to the latest namespace until it does not
// conflict; a namespace recreated meanwhile (another uid) ends it.
func (c *Controller) retryOnConflict(ctx context.Context, ns *corev1.Namespace, fn func(context.Context, *corev1.Namespace) (*corev1.Namespace, error)) (*corev1.Namespace, error) {
	for {
		out, err := fn(ctx, ns)
		if !apierrors.IsConflict(err) {
			return out, err
		}
		latest, err := c.namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if latest.UID != ns.UID {
			return nil, fmt.Errorf("namespace %s was recreated meanwhile", ns.Name)
		}
		ns = latest
	}
}

func (c *Controller) ensureTerminating(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
	if ns.DeletionTimestamp == nil || ns.Status.Phase == corev1.NamespaceTerminating {
		return ns, nil
	}
	ns = ns.DeepCopy()
	ns.Status.Phase = corev1.NamespaceTerminating
	return c.namespaces().UpdateStatus(ctx, ns, metav1.UpdateOptions{})
}

// finalize removes the "kubernetes" finalizer through namespaces/finalize.
func (c *Controller) finalize(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
	ns = ns.DeepCopy()
	ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f corev1.FinalizerName) bool {
		return f == corev1.FinalizerKubernetes
	})
	return c.namespaces().Finalize(ctx, ns, metav1.UpdateOptions{})
}

// deleteAllContent deletes the namespace's objects of every namespaced
// resource discovery lists now (custom resources included), records what
// remains in the namespace's conditions, and returns an estimate in
// seconds of how long the rest takes (0: nothing remains).
func (c *Controller) deleteAllContent(ctx context.Context, ns *corev1.Namespace) (int64, error) {
	report := &contentReport{remaining: map[schema.GroupVersionResource]int{}, finalizers: map[string]int{}}
	var errs []error
	lists, err := c.discover(ctx)
	if err != nil {
		// A partial answer is still worth acting on.
		errs = append(errs, err)
		report.discoveryErr = err
	}
	deletable := discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"delete"}}, lists)
	resources, err := resourceVerbs(deletable)
	if err != nil {
		errs = append(errs, err)
		report.parseErr = err
	}
	var estimate int64
	for _, gvr := range sortedResources(resources) {
		left, err := c.deleteResource(ctx, gvr, resources[gvr], ns)
		if err != nil {
			errs = append(errs, err)
			report.deleteErrs = append(report.deleteErrs, err)
		}
		estimate = max(estimate, left.estimate)
		if left.count > 0 {
			report.remaining[gvr] = left.count
			for f, n := range left.finalizers {
				report.finalizers[f] += n
			}
		}
	}
	// Always written: a condition that failed before may be fine now.
	updated := ns.DeepCopy()
	if applyConditions(&updated.Status, report.conditions(), metav1.Now()) {
		if _, err := c.namespaces().UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
			c.logger.Warn("could not update the namespace's conditions", "namespace", ns.Name, "err", err)
		}
	}
	return estimate, errors.Join(errs...)
}

// resourceVerbs maps each resource of the lists to its verbs.
func resourceVerbs(lists []*metav1.APIResourceList) (map[schema.GroupVersionResource][]string, error) {
	out := map[schema.GroupVersionResource][]string{}
	var errs []error
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource: its parent's objects are the content
			}
			out[gv.WithResource(r.Name)] = r.Verbs
		}
	}
	return out, errors.Join(errs...)
}

func sortedResources(m map[schema.GroupVersionResource][]string) []schema.GroupVersionResource {
	out := make([]schema.GroupVersionResource, 0, len(m))
	for gvr := range m {
		out = append(out, gvr)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionResource) int {
		if c := cmp.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return cmp.Compare(a.Resource, b.Resource)
	})
	return out
}

// leftover is what remains of one resource after a pass.
type leftover struct {
	estimate   int64
	count      int
	finalizers map[string]int
}

// deleteResource deletes every object of one resource in the namespace,
// with deletecollection where the resource offers it, else one by one.
// Objects that remain are fine when finalizers or grace periods explain
// them, and an error otherwise.
func (c *Controller) deleteResource(ctx context.Context, gvr schema.GroupVersionResource, verbs []string, ns *corev1.Namespace) (leftover, error) {
	estimate, err := c.estimateGracefulTermination(ctx, gvr, ns)
	if err != nil {
		return leftover{}, err
	}
	client := c.metadata.Resource(gvr).Namespace(ns.Name)
	// Dependents are the namespace's content too; the orphan finalizer a
	// resource's default policy might add would hold the object forever.
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &background}
	canList := slices.Contains(verbs, "list")
	collected := false
	if slices.Contains(verbs, "deletecollection") {
		err := client.DeleteCollection(ctx, opts, metav1.ListOptions{})
		if err != nil && !notSupported(err) {
			return leftover{estimate: estimate}, err
		}
		collected = err == nil
	}
	if !collected && canList {
		if err := c.deleteEach(ctx, client, opts); err != nil {
			return leftover{estimate: estimate}, err
		}
	}
	if !canList {
		return leftover{estimate: estimate}, nil
	}
	list, err := client.List(ctx, metav1.ListOptions{})
	if notSupported(err) {
		return leftover{estimate: estimate}, nil
	}
	if err != nil {
		return leftover{estimate: estimate}, err
	}
	if len(list.Items) == 0 {
		return leftover{}, nil
	}
	left := leftover{estimate: estimate, count: len(list.Items), finalizers: map[string]int{}}
	for _, item := range list.Items {
		for _, f := range item.Finalizers {
			left.finalizers[f]++
		}
	}
	switch {
	case estimate > 0:
		return left, nil
	case len(left.finalizers) > 0:
		// Finalizers are a normal reason to wait; give their owners time.
		left.estimate = finalizerEstimate
		return left, nil
	}
	return left, fmt.Errorf("unexpected items still remain in namespace: %s for gvr: %v", ns.Name, gvr)
}

// deleteEach lists the resource and deletes its objects one by one.
func (c *Controller) deleteEach(ctx context.Context, client metadata.ResourceInterface, opts metav1.DeleteOptions) error {
	list, err := client.List(ctx, metav1.ListOptions{})
	if notSupported(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, item := range list.Items {
		if err := client.Delete(ctx, item.Name, opts); err != nil && !notSupported(err) {
			return err
		}
	}
	return nil
}

// notSupported: the verb is not served (405), or the resource vanished
// meanwhile (404: a CRD deleted since discovery, or an object gone).
func notSupported(err error) bool {
	return apierrors.IsMethodNotSupported(err) || apierrors.IsNotFound(err)
}

// estimateGracefulTermination is how long the namespace's pods may still
// take, from their grace periods, counted from the namespace's deletion.
func (c *Controller) estimateGracefulTermination(ctx context.Context, gvr schema.GroupVersionResource, ns *corev1.Namespace) (int64, error) {
	if gvr.GroupResource() != (schema.GroupResource{Resource: "pods"}) {
		return 0, nil
	}
	pods, err := c.client.CoreV1().Pods(ns.Name).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	var estimate int64
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g > estimate {
			estimate = *g
		}
	}
	if time.Since(ns.DeletionTimestamp.Time) >= time.Duration(estimate)*time.Second {
		return 0, nil
	}
	return estimate, nil
}
