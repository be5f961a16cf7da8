package rest_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

func TestBeforeUpdate(t *testing.T) {
	strategy := resttest.NewConfigMapStrategy(resttest.NewScheme())
	created := metav1.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	deleted := metav1.NewTime(created.Add(time.Hour))
	grace := int64(0)
	old := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "foo", UID: "uid-1", ResourceVersion: "7", Generation: 3,
		CreationTimestamp: created, DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace,
		Finalizers: []string{"example.com/a"},
	}}
	// updated returns a client's new version of old.
	updated := func(edit func(cm *corev1.ConfigMap)) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: "foo", ResourceVersion: "7", Finalizers: []string{"example.com/a"},
		}}
		if edit != nil {
			edit(cm)
		}
		return cm
	}

	tests := []struct {
		name        string
		requestNS   string
		obj         *corev1.ConfigMap
		wantCode    int32
		wantMessage string
		check       func(t *testing.T, cm *corev1.ConfigMap)
	}{
		{
			name: "server-owned fields kept from old", requestNS: "ns",
			obj: updated(func(cm *corev1.ConfigMap) { cm.Generation = 99 }),
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				if cm.Namespace != "ns" || cm.UID != "uid-1" || cm.Generation != 3 {
					t.Errorf("namespace, uid, generation = %q %q %d, want ns uid-1 3", cm.Namespace, cm.UID, cm.Generation)
				}
				if !cm.CreationTimestamp.Equal(&created) {
					t.Errorf("creationTimestamp = %v, want %v", cm.CreationTimestamp, created)
				}
				if cm.DeletionTimestamp == nil || !cm.DeletionTimestamp.Equal(&deleted) || cm.DeletionGracePeriodSeconds == nil {
					t.Errorf("deletion fields = %v %v, want kept", cm.DeletionTimestamp, cm.DeletionGracePeriodSeconds)
				}
			},
		},
		{
			name: "namespace mismatch", requestNS: "ns",
			obj:      updated(func(cm *corev1.ConfigMap) { cm.Namespace = "other" }),
			wantCode: 400, wantMessage: "the namespace of the provided object does not match the namespace sent on the request",
		},
		{
			name: "uid is immutable", requestNS: "ns",
			obj:      updated(func(cm *corev1.ConfigMap) { cm.UID = "uid-2" }),
			wantCode: 422, wantMessage: `ConfigMap "foo" is invalid: metadata.uid: Invalid value: "uid-2": field is immutable`,
		},
		{
			name: "no new finalizers while deleting", requestNS: "ns",
			obj:      updated(func(cm *corev1.ConfigMap) { cm.Finalizers = append(cm.Finalizers, "example.com/b") }),
			wantCode: 422, wantMessage: `ConfigMap "foo" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}`,
		},
		{
			name: "strategy validation", requestNS: "ns",
			obj:      updated(func(cm *corev1.ConfigMap) { cm.Data = map[string]string{resttest.InvalidKey: "x"} }),
			wantCode: 422, wantMessage: `ConfigMap "foo" is invalid: data[invalid]: Invalid value: "x": this key is reserved for tests`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := request.WithNamespace(context.Background(), tt.requestNS)
			err := rest.BeforeUpdate(strategy, ctx, tt.obj, old.DeepCopy())
			wantStatus(t, err, tt.wantCode, tt.wantMessage)
			if err == nil && tt.check != nil {
				tt.check(t, tt.obj)
			}
		})
	}
}
