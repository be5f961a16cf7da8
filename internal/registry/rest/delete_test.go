package rest_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

func TestBeforeDelete(t *testing.T) {
	scheme := resttest.NewScheme()
	plain := resttest.NewConfigMapStrategy(scheme)
	graceful := resttest.GracefulDeleteStrategy{ObjectTyper: scheme, DefaultPeriod: 30}
	orphan := metav1.DeletePropagationOrphan
	unknown := metav1.DeletionPropagation("Sideways")
	yes := true
	otherUID := types.UID("uid-2")
	staleRV := "6"

	// markedAt is when an earlier graceful delete with a 30s period began.
	markedAt := time.Now().Add(-10 * time.Second).Truncate(time.Second)
	marked := func(period int64) *corev1.ConfigMap {
		cm := configMap("ns", "foo")
		ts := metav1.NewTime(markedAt.Add(time.Duration(period) * time.Second))
		cm.DeletionTimestamp, cm.DeletionGracePeriodSeconds = &ts, &period
		return cm
	}
	current := func() *corev1.ConfigMap {
		cm := configMap("ns", "foo")
		cm.UID, cm.ResourceVersion, cm.Generation = "uid-1", "7", 2
		return cm
	}

	tests := []struct {
		name         string
		strategy     rest.RESTDeleteStrategy
		obj          *corev1.ConfigMap
		options      *metav1.DeleteOptions
		wantGraceful bool
		wantPending  bool
		wantCode     int32
		wantMessage  string
		check        func(t *testing.T, cm *corev1.ConfigMap)
	}{
		{name: "plain strategy deletes at once", strategy: plain, obj: current(), options: &metav1.DeleteOptions{}},
		{
			name: "orphanDependents with propagationPolicy", strategy: plain, obj: current(),
			options:  &metav1.DeleteOptions{OrphanDependents: &yes, PropagationPolicy: &orphan},
			wantCode: 422, wantMessage: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set`,
		},
		{
			name: "unknown propagationPolicy", strategy: plain, obj: current(),
			options:  &metav1.DeleteOptions{PropagationPolicy: &unknown},
			wantCode: 422, wantMessage: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`,
		},
		{
			name: "uid precondition", strategy: plain, obj: current(),
			options:  &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &otherUID}},
			wantCode: 409, wantMessage: `Operation cannot be fulfilled on ConfigMap "foo": the UID in the precondition (uid-2) does not match the UID in record (uid-1). The object might have been deleted and then recreated`,
		},
		{
			name: "resourceVersion precondition", strategy: plain, obj: current(),
			options:  &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &staleRV}},
			wantCode: 409, wantMessage: `Operation cannot be fulfilled on ConfigMap "foo": the ResourceVersion in the precondition (6) does not match the ResourceVersion in record (7). The object might have been modified`,
		},
		{
			name: "graceful strategy marks with the default period", strategy: graceful, obj: current(),
			options: &metav1.DeleteOptions{}, wantGraceful: true,
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				if cm.DeletionGracePeriodSeconds == nil || *cm.DeletionGracePeriodSeconds != 30 {
					t.Errorf("deletionGracePeriodSeconds = %v, want 30", cm.DeletionGracePeriodSeconds)
				}
				if until := time.Until(cm.DeletionTimestamp.Time); until < 25*time.Second || until > 31*time.Second {
					t.Errorf("deletionTimestamp is %v away, want about 30s", until)
				}
				if cm.Generation != 3 {
					t.Errorf("generation = %d, want 3", cm.Generation)
				}
			},
		},
		{
			name: "graceful strategy with period 0 deletes at once", strategy: graceful, obj: current(),
			options: metav1.NewDeleteOptions(0),
		},
		{
			name: "pending graceful deletion is not extended", strategy: graceful, obj: marked(30),
			options: metav1.NewDeleteOptions(60), wantPending: true,
		},
		{
			name: "pending graceful deletion is shortened", strategy: graceful, obj: marked(30),
			options: metav1.NewDeleteOptions(5), wantGraceful: true,
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				want := markedAt.Add(5 * time.Second)
				if !cm.DeletionTimestamp.Time.Equal(want) || *cm.DeletionGracePeriodSeconds != 5 {
					t.Errorf("deletion = %v %d, want %v 5", cm.DeletionTimestamp, *cm.DeletionGracePeriodSeconds, want)
				}
			},
		},
		{
			name: "marked with period 0 is deleted", strategy: graceful, obj: marked(0),
			options: &metav1.DeleteOptions{},
		},
		{
			name: "negative period means one second", strategy: graceful, obj: current(),
			options: metav1.NewDeleteOptions(-5), wantGraceful: true,
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				if *cm.DeletionGracePeriodSeconds != 1 {
					t.Errorf("deletionGracePeriodSeconds = %d, want 1", *cm.DeletionGracePeriodSeconds)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			graceful, pending, err := rest.BeforeDelete(tt.strategy, context.Background(), tt.obj, tt.options)
			wantStatus(t, err, tt.wantCode, tt.wantMessage)
			if err != nil {
				return
			}
			if graceful != tt.wantGraceful || pending != tt.wantPending {
				t.Errorf("graceful, pending = %v %v, want %v %v", graceful, pending, tt.wantGraceful, tt.wantPending)
			}
			if tt.check != nil {
				tt.check(t, tt.obj)
			}
		})
	}
}
