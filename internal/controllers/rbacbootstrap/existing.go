package rbacbootstrap

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// existing is what the cluster held when reconciliation began, read with
// one list per kind: on a fresh cluster (every start of a test server)
// nothing is there, and each object is created without first being asked
// for, halving the requests the server waits for at start. It only saves
// reads: an object created meanwhile makes the create fail with
// AlreadyExists, and the object is then reconciled as any other.
type existing struct {
	known bool // false when a list failed: every object is read first
	names map[string]bool

	cs         kubernetes.Interface
	mu         sync.Mutex
	namespaces map[string]bool // created or found by this run
}

// listExisting lists the four RBAC kinds.
func listExisting(ctx context.Context, cs kubernetes.Interface) *existing {
	e := &existing{names: map[string]bool{}, cs: cs, namespaces: map[string]bool{}}
	rbac := cs.RbacV1()
	opts := metav1.ListOptions{}
	crs, err := rbac.ClusterRoles().List(ctx, opts)
	if err != nil {
		return e
	}
	for _, o := range crs.Items {
		e.names[key("clusterrole", o.ObjectMeta)] = true
	}
	crbs, err := rbac.ClusterRoleBindings().List(ctx, opts)
	if err != nil {
		return e
	}
	for _, o := range crbs.Items {
		e.names[key("clusterrolebinding", o.ObjectMeta)] = true
	}
	roles, err := rbac.Roles(metav1.NamespaceAll).List(ctx, opts)
	if err != nil {
		return e
	}
	for _, o := range roles.Items {
		e.names[key("role", o.ObjectMeta)] = true
	}
	rbs, err := rbac.RoleBindings(metav1.NamespaceAll).List(ctx, opts)
	if err != nil {
		return e
	}
	for _, o := range rbs.Items {
		e.names[key("rolebinding", o.ObjectMeta)] = true
	}
	e.known = true
	return e
}

func key(kind string, m metav1.ObjectMeta) string { return kind + "/" + m.Namespace + "/" + m.Name }

// absent reports whether the object was certainly missing at the start.
func (e *existing) absent(kind string, m metav1.ObjectMeta) bool {
	return e != nil && e.known && !e.names[key(kind, m)]
}

// ensureNamespace creates the namespace a role lives in if it is missing,
// as upstream does (kube-system and kube-public may not exist yet), once
// per run.
func (e *existing) ensureNamespace(ctx context.Context, ns string) error {
	if ns == "" {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.namespaces[ns] {
		return nil
	}
	_, err := e.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	e.namespaces[ns] = true
	return nil
}
