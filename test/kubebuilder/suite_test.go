package kubebuilder

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// eventuallyTimeout bounds each wait for the reconciler; reaching it is a
// failure, never a measurement.
const eventuallyTimeout = time.Minute

// eventually polls cond until it holds.
func eventually(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), eventuallyTimeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
	}
}

// startManager runs the Guestbook controller in a controller-runtime
// manager against cfg until the test ends.
func startManager(t *testing.T, cfg *rest.Config) *GuestbookReconciler {
	t.Helper()
	s, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 s,
		Logger:                 logr.Discard(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Three suites in one process register the same controller name.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &GuestbookReconciler{Client: mgr.GetClient()}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("manager: %v", err)
		}
	})
	return r
}

// runSuite is the suite's one set of assertions; cfg is the cluster's
// admin config, with the Guestbook CRD installed.
func runSuite(t *testing.T, cfg *rest.Config) {
	r := startManager(t, cfg)
	s, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	// A direct client, not the manager's cache: what the test reads is
	// what the server holds.
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	gb := &Guestbook{
		ObjectMeta: metav1.ObjectMeta{Name: "visitors", Namespace: "default"},
		Spec:       GuestbookSpec{Message: "hello", Replicas: ptr.To[int32](2)},
	}
	key := client.ObjectKeyFromObject(gb)
	if err := c.Create(context.Background(), gb); err != nil {
		t.Fatalf("create Guestbook: %v", err)
	}

	t.Run("finalizer, status and owned ConfigMap", func(t *testing.T) {
		eventually(t, "the Guestbook reconciled", func(ctx context.Context) (bool, error) {
			if err := c.Get(ctx, key, gb); err != nil {
				return false, err
			}
			return reconciled(gb, 2), nil
		})
		if got := gb.Finalizers; len(got) != 1 || got[0] != finalizer {
			t.Errorf("finalizers %v, want [%s]", got, finalizer)
		}
		cm := &corev1.ConfigMap{}
		eventually(t, "the owned ConfigMap", func(ctx context.Context) (bool, error) {
			err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "visitors-config"}, cm)
			return err == nil && cm.Data["message"] == "hello", err
		})
		want := metav1.OwnerReference{
			APIVersion: "webapp.kapi.dev/v1", Kind: "Guestbook", Name: "visitors", UID: gb.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}
		if refs := cm.OwnerReferences; len(refs) != 1 || !equalOwnerRef(refs[0], want) {
			t.Errorf("ConfigMap ownerReferences %+v, want [%+v]", refs, want)
		}
	})

	t.Run("scale subresource", func(t *testing.T) {
		ctx := context.Background()
		scale := &autoscalingv1.Scale{}
		if err := c.SubResource("scale").Get(ctx, gb, scale); err != nil {
			t.Fatalf("get scale: %v", err)
		}
		if scale.Spec.Replicas != 2 || scale.Status.Replicas != 2 || scale.Status.Selector != "app=visitors" {
			t.Errorf("scale spec %d status %d selector %q, want 2, 2, app=visitors",
				scale.Spec.Replicas, scale.Status.Replicas, scale.Status.Selector)
		}
		scale.Spec.Replicas = 3
		if err := c.SubResource("scale").Update(ctx, gb, client.WithSubResourceBody(scale)); err != nil {
			t.Fatalf("update scale: %v", err)
		}
		eventually(t, "the scaled Guestbook reconciled", func(ctx context.Context) (bool, error) {
			if err := c.Get(ctx, key, gb); err != nil {
				return false, err
			}
			return reconciled(gb, 3), nil
		})
	})

	t.Run("status subresource", func(t *testing.T) {
		ctx := context.Background()
		// The main resource ignores status; the status subresource ignores spec.
		gb.Spec.Message = "goodbye"
		gb.Status.Replicas = 99
		if err := c.Update(ctx, gb); err != nil {
			t.Fatalf("update Guestbook: %v", err)
		}
		if gb.Status.Replicas == 99 || gb.Spec.Message != "goodbye" {
			t.Errorf("after update: spec.message %q status.replicas %d; want goodbye and status unchanged", gb.Spec.Message, gb.Status.Replicas)
		}
		gb.Spec.Message = "ignored"
		if err := c.Status().Update(ctx, gb); err != nil && !apierrors.IsConflict(err) {
			t.Fatalf("update status: %v", err)
		}
		cm := &corev1.ConfigMap{}
		eventually(t, "the ConfigMap updated", func(ctx context.Context) (bool, error) {
			err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "visitors-config"}, cm)
			return err == nil && cm.Data["message"] == "goodbye", err
		})
		if err := c.Get(ctx, key, gb); err != nil || gb.Spec.Message != "goodbye" {
			t.Errorf("spec.message %q (%v) after a status update that changed it, want goodbye", gb.Spec.Message, err)
		}
	})

	t.Run("deletion", func(t *testing.T) {
		if err := c.Delete(context.Background(), gb); err != nil {
			t.Fatalf("delete Guestbook: %v", err)
		}
		eventually(t, "the Guestbook gone", func(ctx context.Context) (bool, error) {
			err := c.Get(ctx, key, &Guestbook{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
		if !r.Finalized(key) {
			t.Errorf("the Guestbook went without the reconciler's cleanup: its finalizer was not honoured")
		}
	})
}

// reconciled reports whether the reconciler caught up with gb's spec at
// replicas.
func reconciled(gb *Guestbook, replicas int32) bool {
	ready := meta.FindStatusCondition(gb.Status.Conditions, "Ready")
	return gb.Spec.Replicas != nil && *gb.Spec.Replicas == replicas &&
		gb.Status.Replicas == replicas && gb.Status.ObservedGeneration == gb.Generation &&
		ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == gb.Generation
}

func equalOwnerRef(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		ptr.Deref(a.Controller, false) == ptr.Deref(b.Controller, false) &&
		ptr.Deref(a.BlockOwnerDeletion, false) == ptr.Deref(b.BlockOwnerDeletion, false)
}
