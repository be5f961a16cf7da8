package kubebuilder

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// finalizer is what the reconciler puts on every Guestbook, so that it
// sees the deletion and cleans up before the object goes.
const finalizer = "webapp.kapi.dev/cleanup"

// GuestbookReconciler is a kubebuilder-style reconciler: it owns a
// ConfigMap per Guestbook holding the message, keeps the status (replicas,
// selector, observed generation, a Ready condition), and removes its
// finalizer on deletion.
type GuestbookReconciler struct {
	client.Client

	mu        sync.Mutex
	finalized map[string]bool
}

// Finalized reports whether the reconciler ran the cleanup of the named
// Guestbook.
func (r *GuestbookReconciler) Finalized(key client.ObjectKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finalized[key.String()]
}

// SetupWithManager registers the controller: Guestbooks and the
// ConfigMaps they own.
func (r *GuestbookReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.finalized = map[string]bool{}
	return ctrl.NewControllerManagedBy(mgr).
		For(&Guestbook{}).
		Owns(&corev1.ConfigMap{}).
		Complete(r)
}

// Reconcile brings one Guestbook's world in line with its spec.
func (r *GuestbookReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	gb := &Guestbook{}
	if err := r.Get(ctx, req.NamespacedName, gb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !gb.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, gb)
	}
	if controllerutil.AddFinalizer(gb, finalizer) {
		if err := r.Update(ctx, gb); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.ensureConfigMap(ctx, gb); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.updateStatus(ctx, gb)
}

func (r *GuestbookReconciler) finalize(ctx context.Context, gb *Guestbook) error {
	if !controllerutil.ContainsFinalizer(gb, finalizer) {
		return nil
	}
	r.mu.Lock()
	r.finalized[client.ObjectKeyFromObject(gb).String()] = true
	r.mu.Unlock()
	controllerutil.RemoveFinalizer(gb, finalizer)
	return r.Update(ctx, gb)
}

// configMapName is the name of the ConfigMap a Guestbook owns.
func configMapName(gb *Guestbook) string { return gb.Name + "-config" }

func (r *GuestbookReconciler) ensureConfigMap(ctx context.Context, gb *Guestbook) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configMapName(gb), Namespace: gb.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"message": gb.Spec.Message}
		return controllerutil.SetControllerReference(gb, cm, r.Scheme())
	})
	if err != nil {
		return fmt.Errorf("configmap for %s: %w", gb.Name, err)
	}
	return nil
}

func (r *GuestbookReconciler) updateStatus(ctx context.Context, gb *Guestbook) error {
	var replicas int32 = 1
	if gb.Spec.Replicas != nil {
		replicas = *gb.Spec.Replicas
	}
	before := gb.Status.DeepCopy()
	gb.Status.Replicas = replicas
	gb.Status.Selector = "app=" + gb.Name
	gb.Status.ObservedGeneration = gb.Generation
	meta.SetStatusCondition(&gb.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "ConfigMapReady",
		Message: "the ConfigMap holds the message", ObservedGeneration: gb.Generation,
	})
	if equalStatus(before, &gb.Status) {
		return nil
	}
	// A conflict returns an error: the request is queued again and the
	// next pass reads the newer object.
	return r.Status().Update(ctx, gb)
}

func equalStatus(a, b *GuestbookStatus) bool {
	if a.Replicas != b.Replicas || a.Selector != b.Selector || a.ObservedGeneration != b.ObservedGeneration || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.ObservedGeneration != y.ObservedGeneration {
			return false
		}
	}
	return true
}

// DeepCopy of the status, for comparing before and after.
func (in *GuestbookStatus) DeepCopy() *GuestbookStatus {
	out := *in
	out.Conditions = append([]metav1.Condition(nil), in.Conditions...)
	return &out
}
