package generic_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

// resettingStrategy is the ConfigMap strategy with reset fields.
type resettingStrategy struct {
	resttest.ConfigMapStrategy
	reset map[string]struct{}
}

func (s resettingStrategy) GetResetFields() map[string]struct{} { return s.reset }

func TestStoreGetResetFields(t *testing.T) {
	status := map[string]struct{}{"status": {}}
	tests := []struct {
		name string
		edit func(s *generic.Store, strategy *resttest.ConfigMapStrategy)
		want map[string]struct{}
	}{
		{name: "strategy without reset fields", want: nil},
		{name: "strategy with reset fields", edit: func(s *generic.Store, strategy *resttest.ConfigMapStrategy) {
			s.CreateStrategy, s.DeleteStrategy = *strategy, *strategy
			s.UpdateStrategy = resettingStrategy{ConfigMapStrategy: *strategy, reset: status}
		}, want: status},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s rest.ResetFieldsStrategy = newStore(t, tt.edit)
			if diff := cmp.Diff(tt.want, s.GetResetFields()); diff != "" {
				t.Errorf("GetResetFields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusRESTResetFieldsDifferFromStore(t *testing.T) {
	store := newStore(t, func(s *generic.Store, strategy *resttest.ConfigMapStrategy) {
		s.CreateStrategy, s.DeleteStrategy = *strategy, *strategy
		s.UpdateStrategy = resettingStrategy{ConfigMapStrategy: *strategy, reset: map[string]struct{}{"status": {}}}
	})
	status := generic.NewStatusREST(store, resettingStrategy{reset: map[string]struct{}{"spec": {}}})
	if got := store.GetResetFields(); cmp.Diff(map[string]struct{}{"status": {}}, got) != "" {
		t.Errorf("store reset fields %v, want status", got)
	}
	if got := status.GetResetFields(); cmp.Diff(map[string]struct{}{"spec": {}}, got) != "" {
		t.Errorf("status reset fields %v, want spec", got)
	}
}
