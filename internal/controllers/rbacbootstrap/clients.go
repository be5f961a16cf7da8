package rbacbootstrap

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	rbacclient "k8s.io/client-go/kubernetes/typed/rbac/v1"
)

// Adapters from the four RBAC kinds to roleView/bindingView and their clients.

func clusterRoleView(r rbacv1.ClusterRole) roleView {
	p := &r
	return roleView{meta: &p.ObjectMeta, rules: &p.Rules, agg: &p.AggregationRule, obj: p}
}

func nsRoleView(r rbacv1.Role) roleView {
	p := &r
	var none *rbacv1.AggregationRule
	return roleView{meta: &p.ObjectMeta, rules: &p.Rules, agg: &none, obj: p}
}

func clusterBindingView(b rbacv1.ClusterRoleBinding) bindingView {
	p := &b
	return bindingView{meta: &p.ObjectMeta, roleRef: p.RoleRef, subjects: &p.Subjects, obj: p}
}

func nsBindingView(b rbacv1.RoleBinding) bindingView {
	p := &b
	return bindingView{meta: &p.ObjectMeta, roleRef: p.RoleRef, subjects: &p.Subjects, obj: p}
}

func deleteOptions(uid string) metav1.DeleteOptions {
	u := types.UID(uid)
	return metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &u}}
}

func clusterRoleClient(c rbacclient.ClusterRoleInterface) roleClient {
	return roleClient{
		get: func(ctx context.Context, name string) (roleView, error) {
			r, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return roleView{}, err
			}
			return clusterRoleView(*r), nil
		},
		create: func(ctx context.Context, r roleView) error {
			_, err := c.Create(ctx, r.obj.(*rbacv1.ClusterRole), metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, r roleView) error {
			_, err := c.Update(ctx, r.obj.(*rbacv1.ClusterRole), metav1.UpdateOptions{})
			return err
		},
	}
}

func nsRoleClient(c rbacclient.RoleInterface) roleClient {
	return roleClient{
		get: func(ctx context.Context, name string) (roleView, error) {
			r, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return roleView{}, err
			}
			return nsRoleView(*r), nil
		},
		create: func(ctx context.Context, r roleView) error {
			_, err := c.Create(ctx, r.obj.(*rbacv1.Role), metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, r roleView) error {
			_, err := c.Update(ctx, r.obj.(*rbacv1.Role), metav1.UpdateOptions{})
			return err
		},
	}
}

func clusterBindingClient(c rbacclient.ClusterRoleBindingInterface) bindingClient {
	return bindingClient{
		get: func(ctx context.Context, name string) (bindingView, error) {
			b, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return bindingView{}, err
			}
			return clusterBindingView(*b), nil
		},
		create: func(ctx context.Context, b bindingView) error {
			_, err := c.Create(ctx, b.obj.(*rbacv1.ClusterRoleBinding), metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, b bindingView) error {
			_, err := c.Update(ctx, b.obj.(*rbacv1.ClusterRoleBinding), metav1.UpdateOptions{})
			return err
		},
		delete: func(ctx context.Context, name, uid string) error {
			return c.Delete(ctx, name, deleteOptions(uid))
		},
	}
}

func nsBindingClient(c rbacclient.RoleBindingInterface) bindingClient {
	return bindingClient{
		get: func(ctx context.Context, name string) (bindingView, error) {
			b, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return bindingView{}, err
			}
			return nsBindingView(*b), nil
		},
		create: func(ctx context.Context, b bindingView) error {
			_, err := c.Create(ctx, b.obj.(*rbacv1.RoleBinding), metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, b bindingView) error {
			_, err := c.Update(ctx, b.obj.(*rbacv1.RoleBinding), metav1.UpdateOptions{})
			return err
		},
		delete: func(ctx context.Context, name, uid string) error {
			return c.Delete(ctx, name, deleteOptions(uid))
		},
	}
}
