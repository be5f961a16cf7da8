// Package rbacbootstrap creates and keeps up to date the default RBAC
// policy, as kube-apiserver's "rbac/bootstrap-roles" post-start hook does:
// missing objects are created; objects annotated
// rbac.authorization.kubernetes.io/autoupdate "true" (or without the
// annotation) get missing rules, labels, annotations and subjects added;
// nothing is ever removed, and "false" leaves an object alone.
package rbacbootstrap

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
)

// Reconcile brings the bootstrap policy into the cluster through cs and
// returns when every object is in place, or with the first error that
// retrying on conflicts did not cure. Objects are independent of each
// other (a binding may name a role that does not exist yet), so they are
// reconciled a few at a time: the server waits for this at start.
func Reconcile(ctx context.Context, cs kubernetes.Interface) error {
	rbac := cs.RbacV1()
	ex := listExisting(ctx, cs)
	var jobs []func() error
	for _, r := range bootstrappolicy.ClusterRoles() {
		jobs = append(jobs, func() error {
			return reconcileRole(ctx, ex, "clusterrole", clusterRoleView(r), clusterRoleClient(rbac.ClusterRoles()))
		})
	}
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		jobs = append(jobs, func() error {
			return reconcileBinding(ctx, ex, "clusterrolebinding", clusterBindingView(b), clusterBindingClient(rbac.ClusterRoleBindings()))
		})
	}
	nsRoles := bootstrappolicy.NamespaceRoles()
	for _, ns := range slices.Sorted(maps.Keys(nsRoles)) {
		for _, r := range nsRoles[ns] {
			jobs = append(jobs, func() error {
				return reconcileRole(ctx, ex, "role", nsRoleView(r), nsRoleClient(rbac.Roles(ns)))
			})
		}
	}
	nsBindings := bootstrappolicy.NamespaceRoleBindings()
	for _, ns := range slices.Sorted(maps.Keys(nsBindings)) {
		for _, b := range nsBindings[ns] {
			jobs = append(jobs, func() error {
				return reconcileBinding(ctx, ex, "rolebinding", nsBindingView(b), nsBindingClient(rbac.RoleBindings(ns)))
			})
		}
	}
	return runAll(jobs, reconcileWorkers)
}

// reconcileWorkers bounds the requests in flight at start.
const reconcileWorkers = 8

// runAll runs jobs on workers goroutines and returns the errors joined.
func runAll(jobs []func() error, workers int) error {
	next := make(chan func() error)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for job := range next {
				if err := job(); err != nil && errs[w] == nil {
					errs[w] = err
				}
			}
		})
	}
	for _, job := range jobs {
		next <- job
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// retryable: a conflict means someone else wrote first; AlreadyExists means
// someone created it between our get and create. Both are cured by reading
// again.
func retryable(err error) bool { return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) }

// protected reports whether an admin opted the object out of updates.
func protected(m metav1.ObjectMeta) bool {
	return m.Annotations[rbacv1.AutoUpdateAnnotationKey] == "false"
}

// mergeMeta adds the labels and annotations existing lacks; existing values win.
func mergeMeta(existing *metav1.ObjectMeta, want metav1.ObjectMeta) bool {
	changed := false
	for k, v := range want.Labels {
		if _, ok := existing.Labels[k]; !ok {
			if existing.Labels == nil {
				existing.Labels = map[string]string{}
			}
			existing.Labels[k] = v
			changed = true
		}
	}
	for k, v := range want.Annotations {
		if _, ok := existing.Annotations[k]; !ok {
			if existing.Annotations == nil {
				existing.Annotations = map[string]string{}
			}
			existing.Annotations[k] = v
			changed = true
		}
	}
	return changed
}

// roleView is a ClusterRole or Role seen through the parts reconciliation touches.
type roleView struct {
	meta  *metav1.ObjectMeta
	rules *[]rbacv1.PolicyRule
	agg   **rbacv1.AggregationRule
	obj   any
}

// roleClient is the client of one kind of role.
type roleClient struct {
	get    func(ctx context.Context, name string) (roleView, error)
	create func(ctx context.Context, r roleView) error
	update func(ctx context.Context, r roleView) error
}

func reconcileRole(ctx context.Context, ex *existing, kind string, want roleView, api roleClient) error {
	if done, err := createAbsent(ctx, ex, kind, *want.meta, func() error { return api.create(ctx, want) }); done || err != nil {
		return err
	}
	err := retry.OnError(retry.DefaultRetry, retryable, func() error {
		have, err := api.get(ctx, want.meta.Name)
		if apierrors.IsNotFound(err) {
			if err := ex.ensureNamespace(ctx, want.meta.Namespace); err != nil {
				return err
			}
			return api.create(ctx, want)
		}
		if err != nil || protected(*have.meta) {
			return err
		}
		if mergeRole(have, want) {
			return api.update(ctx, have)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("unable to reconcile %s %s: %w", kind, objName(*want.meta), err)
	}
	return nil
}

// mergeRole adds what have lacks of want and reports whether it changed.
// An aggregated role's rules belong to the aggregation controller, and want
// has none to add; its selectors are unioned instead.
func mergeRole(have, want roleView) bool {
	changed := mergeMeta(have.meta, *want.meta)
	if missing := missingRules(*have.rules, *want.rules); len(missing) > 0 {
		*have.rules = append(*have.rules, missing...)
		changed = true
	}
	switch {
	case *want.agg == nil && *have.agg != nil:
		*have.agg = nil
		changed = true
	case *want.agg != nil:
		if *have.agg == nil {
			*have.agg = &rbacv1.AggregationRule{}
		}
		for _, sel := range (*want.agg).ClusterRoleSelectors {
			if !slices.ContainsFunc((*have.agg).ClusterRoleSelectors, func(s metav1.LabelSelector) bool {
				return equality.Semantic.DeepEqual(s, sel)
			}) {
				(*have.agg).ClusterRoleSelectors = append((*have.agg).ClusterRoleSelectors, sel)
				changed = true
			}
		}
	}
	return changed
}

// bindingView is a ClusterRoleBinding or RoleBinding seen the same way.
type bindingView struct {
	meta     *metav1.ObjectMeta
	roleRef  rbacv1.RoleRef
	subjects *[]rbacv1.Subject
	obj      any
}

type bindingClient struct {
	get    func(ctx context.Context, name string) (bindingView, error)
	create func(ctx context.Context, b bindingView) error
	update func(ctx context.Context, b bindingView) error
	delete func(ctx context.Context, name, uid string) error
}

func reconcileBinding(ctx context.Context, ex *existing, kind string, want bindingView, api bindingClient) error {
	if done, err := createAbsent(ctx, ex, kind, *want.meta, func() error { return api.create(ctx, want) }); done || err != nil {
		return err
	}
	err := retry.OnError(retry.DefaultRetry, retryable, func() error {
		have, err := api.get(ctx, want.meta.Name)
		if apierrors.IsNotFound(err) {
			if err := ex.ensureNamespace(ctx, want.meta.Namespace); err != nil {
				return err
			}
			return api.create(ctx, want)
		}
		if err != nil || protected(*have.meta) {
			return err
		}
		if have.roleRef != want.roleRef {
			// roleRef cannot change: replace the binding, guarded by its uid.
			if err := api.delete(ctx, have.meta.Name, string(have.meta.UID)); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			return api.create(ctx, want)
		}
		changed := mergeMeta(have.meta, *want.meta)
		for _, s := range *want.subjects {
			if !slices.Contains(*have.subjects, s) {
				*have.subjects = append(*have.subjects, s)
				changed = true
			}
		}
		if changed {
			return api.update(ctx, have)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("unable to reconcile %s %s: %w", kind, objName(*want.meta), err)
	}
	return nil
}

// createAbsent creates an object that was missing when the run began.
// done is false when the object must be reconciled the usual way: it was
// there, or it appeared since.
func createAbsent(ctx context.Context, ex *existing, kind string, m metav1.ObjectMeta, create func() error) (done bool, err error) {
	if !ex.absent(kind, m) {
		return false, nil
	}
	if err := ex.ensureNamespace(ctx, m.Namespace); err != nil {
		return false, fmt.Errorf("unable to reconcile %s %s: %w", kind, objName(m), err)
	}
	err = create()
	if apierrors.IsAlreadyExists(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("unable to reconcile %s %s: %w", kind, objName(m), err)
	}
	return true, nil
}

func objName(m metav1.ObjectMeta) string {
	if m.Namespace == "" {
		return fmt.Sprintf("%q", m.Name)
	}
	return fmt.Sprintf("%q in namespace %q", m.Name, m.Namespace)
}
