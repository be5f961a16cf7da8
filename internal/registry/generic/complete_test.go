package generic_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

func TestCompleteWithOptionsRefusesIncompleteStores(t *testing.T) {
	scheme := resttest.NewScheme()
	strategy := resttest.NewConfigMapStrategy(scheme)
	full := func() *generic.Store {
		return &generic.Store{
			NewFunc:                   func() runtime.Object { return &corev1.ConfigMap{} },
			NewListFunc:               func() runtime.Object { return &corev1.ConfigMapList{} },
			DefaultQualifiedResource:  corev1.Resource("configmaps"),
			SingularQualifiedResource: corev1.Resource("configmap"),
			CreateStrategy:            strategy, UpdateStrategy: strategy, DeleteStrategy: strategy,
		}
	}
	options := &generic.StoreOptions{RESTOptions: restOptions{backend: memory.New()}}
	tests := []struct {
		name    string
		edit    func(s *generic.Store)
		options *generic.StoreOptions
		wantErr string
	}{
		{"no resource", func(s *generic.Store) { s.DefaultQualifiedResource.Resource = "" }, options, "non-empty qualified resource"},
		{"no singular", func(s *generic.Store) { s.SingularQualifiedResource.Resource = "" }, options, "singular qualified resource"},
		{"no NewFunc", func(s *generic.Store) { s.NewFunc = nil }, options, "NewFunc"},
		{"no NewListFunc", func(s *generic.Store) { s.NewListFunc = nil }, options, "NewListFunc"},
		{"one key func", func(s *generic.Store) { s.KeyFunc = func(context.Context, string) (string, error) { return "", nil } }, options, "both KeyRootFunc and KeyFunc"},
		{"no strategies", func(s *generic.Store) { s.CreateStrategy, s.UpdateStrategy = nil, nil }, options, "CreateStrategy or UpdateStrategy"},
		{"no delete strategy", func(s *generic.Store) { s.DeleteStrategy = nil }, options, "DeleteStrategy"},
		{"no REST options", func(*generic.Store) {}, &generic.StoreOptions{}, "RESTOptions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := full()
			tt.edit(s)
			err := s.CompleteWithOptions(tt.options)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	namespaced := newStore(t, nil)
	cluster := newStore(t, func(_ *generic.Store, strategy *resttest.ConfigMapStrategy) { strategy.ClusterScoped = true })
	inNS := request.WithNamespace(context.Background(), "ns")
	tests := []struct {
		name      string
		store     *generic.Store
		ctx       context.Context
		wantRoot  string
		wantKey   string
		wantError string
	}{
		{"namespaced", namespaced, inNS, "/configmaps/ns/", "/configmaps/ns/foo", ""},
		{"all namespaces", namespaced, context.Background(), "/configmaps/", "", "Namespace parameter required."},
		{"cluster-scoped", cluster, inNS, "/configmaps/", "/configmaps/foo", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if root := tt.store.KeyRootFunc(tt.ctx); root != tt.wantRoot {
				t.Errorf("root = %q, want %q", root, tt.wantRoot)
			}
			key, err := tt.store.KeyFunc(tt.ctx, "foo")
			if key != tt.wantKey || (err == nil) != (tt.wantError == "") || (err != nil && err.Error() != tt.wantError) {
				t.Errorf("key = %q, %v; want %q, %q", key, err, tt.wantKey, tt.wantError)
			}
		})
	}
	if !namespaced.NamespaceScoped() || cluster.NamespaceScoped() {
		t.Error("NamespaceScoped does not follow the strategy")
	}
	if got := namespaced.GetSingularName(); got != "configmap" {
		t.Errorf("singular name = %q", got)
	}
}
