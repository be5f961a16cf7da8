package clusterroleaggregation

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
)

// cachePoll is how often SyncAll looks whether the informer caught up
// with its own writes; it is a wait for an event already on its way.
const cachePoll = 2 * time.Millisecond

// SyncAll brings every aggregated cluster role up to date once and
// returns when the informer's cache shows the result. It reads the roles
// from the server, not the cache, so right after the bootstrap policy was
// written it needs no cache to catch up first; roles gathering other
// aggregated roles (admin gathers edit, which gathers view) are computed
// until nothing changes. A server runs it before it reports ready, so the
// default admin, edit and view roles are complete by then; Run keeps
// them so afterwards.
func (c *Controller) SyncAll(ctx context.Context) error {
	items, err := c.listRoles(ctx)
	if err != nil {
		return err
	}
	roles := make(map[string]*rbacv1.ClusterRole, len(items))
	for i := range items {
		roles[items[i].Name] = &items[i]
	}
	changed, err := AggregateAll(roles)
	if err != nil {
		return err
	}
	// The writes are independent and each is a large server-side apply:
	// in parallel, they overlap.
	errs := make([]error, len(changed))
	var wg sync.WaitGroup
	for i, name := range changed {
		wg.Go(func() {
			role := roles[name]
			err := c.apply(ctx, name, role.Rules)
			if apierrors.IsUnsupportedMediaType(err) {
				err = c.update(ctx, role, role.Rules)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return c.awaitCache(ctx, roles, changed)
}

// listRoles reads the cluster roles from the server (a consistent read).
// SyncAll changes the roles' rules, so shared objects are copied first.
func (c *Controller) listRoles(ctx context.Context) ([]rbacv1.ClusterRole, error) {
	if c.ListRoles != nil {
		items, err := c.ListRoles(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]rbacv1.ClusterRole, len(items))
		for i := range items {
			items[i].DeepCopyInto(&out[i])
		}
		return out, nil
	}
	list, err := c.cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// AggregateAll sets the rules of every aggregated role in roles to what
// its selectors gather, pass after pass until no role changes (rules only
// grow, so this ends), and returns the names of the roles that changed.
// A server seeding its bootstrap policy uses it to write the roles as
// SyncAll would leave them.
func AggregateAll(roles map[string]*rbacv1.ClusterRole) ([]string, error) {
	list := func(sel labels.Selector) ([]*rbacv1.ClusterRole, error) {
		var out []*rbacv1.ClusterRole
		for _, r := range roles {
			if sel.Matches(labels.Set(r.Labels)) {
				out = append(out, r)
			}
		}
		return out, nil
	}
	names := slices.Sorted(maps.Keys(roles))
	changed := map[string]bool{}
	for pass := 0; pass <= len(roles); pass++ {
		progress := false
		for _, name := range names {
			role := roles[name]
			if role.AggregationRule == nil {
				continue
			}
			rules, err := aggregateFrom(role, list)
			if err != nil {
				return nil, err
			}
			if apiequality.Semantic.DeepEqual(rules, role.Rules) {
				continue
			}
			role.Rules, changed[name], progress = rules, true, true
		}
		if !progress {
			break
		}
	}
	return slices.Sorted(maps.Keys(changed)), nil
}

// awaitCache waits until the informer synced and holds the written rules:
// Run computes from the cache, and from a stale one it would write a
// smaller union until the missing events arrived.
func (c *Controller) awaitCache(ctx context.Context, roles map[string]*rbacv1.ClusterRole, written []string) error {
	select {
	case <-c.syncedCh.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	return wait.PollUntilContextCancel(ctx, cachePoll, true, func(context.Context) (bool, error) {
		for _, name := range written {
			cached, err := c.lister.Get(name)
			if err != nil || !apiequality.Semantic.DeepEqual(cached.Rules, roles[name].Rules) {
				return false, nil
			}
		}
		return true, nil
	})
}
