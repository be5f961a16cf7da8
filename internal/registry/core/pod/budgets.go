package pod

import (
	"context"
	"fmt"

	policyv1 "k8s.io/api/policy/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// DisruptionBudgets is what pods/eviction needs of PodDisruptionBudgets.
type DisruptionBudgets interface {
	// List returns the budgets of namespace.
	List(ctx context.Context, namespace string) ([]policyv1.PodDisruptionBudget, error)
	// UpdateStatus writes b's status; a stale resourceVersion is a 409
	// Conflict, on which eviction reads the budget again.
	UpdateStatus(ctx context.Context, b *policyv1.PodDisruptionBudget) error
}

// NewDisruptionBudgets reads budgets through list (the REST storage of
// "poddisruptionbudgets") and writes their status through status (that of
// "poddisruptionbudgets/status").
func NewDisruptionBudgets(list rest.Lister, status rest.Updater) DisruptionBudgets {
	return &restBudgets{list: list, status: status}
}

type restBudgets struct {
	list   rest.Lister
	status rest.Updater
}

func (b *restBudgets) List(ctx context.Context, namespace string) ([]policyv1.PodDisruptionBudget, error) {
	obj, err := b.list.List(request.WithNamespace(ctx, namespace), &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*policyv1.PodDisruptionBudgetList)
	if !ok {
		return nil, fmt.Errorf("poddisruptionbudgets storage listed %T, not a policy/v1 PodDisruptionBudgetList", obj)
	}
	return list.Items, nil
}

func (b *restBudgets) UpdateStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget) error {
	_, _, err := b.status.Update(request.WithNamespace(ctx, pdb.Namespace), pdb.Name, rest.DefaultUpdatedObjectInfo(pdb),
		rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	return err
}
