package poddisruptionbudget

import (
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of poddisruptionbudgets and their status,
// which share one store.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		NewListFunc:    func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
		Resource:       policyv1.Resource("poddisruptionbudgets"),
		Singular:       policyv1.Resource("poddisruptionbudget"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"pdb"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"poddisruptionbudgets":        store,
		"poddisruptionbudgets/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
