// Package node is the REST storage of core/v1 nodes: the strategies of the
// main resource and of nodes/status, the table kubectl prints, and
// nodes/proxy, which answers 503 since kapi runs no kubelets.
package node

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how nodes are written through the main resource. Unlike
// most resources a node may carry its status on create (kubelets register
// that way), has no generation, and is cluster-scoped.
type Strategy struct {
	rest.DefaultStrategy
}

// StatusStrategy is the update strategy of nodes/status: spec is kept.
type StatusStrategy struct {
	Strategy
}

var (
	_ generic.ResourceStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the node strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: nodes are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// GetResetFields: main-resource writes ignore status.
func (Strategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"status": {}} }

// PrepareForCreate drops the removed dynamic kubelet config fields.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	node := obj.(*corev1.Node)
	node.Spec.ConfigSource = nil
	node.Status.Config = nil
}

// PrepareForUpdate keeps the stored status; spec.configSource may only
// stay where it already was.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	node, oldNode := obj.(*corev1.Node), old.(*corev1.Node)
	node.Status = oldNode.Status
	if oldNode.Spec.ConfigSource == nil {
		node.Spec.ConfigSource = nil
	}
}

// Validate checks a new node.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateNode(obj.(*corev1.Node))
}

// ValidateUpdate checks the node as on create, then what may change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	node := obj.(*corev1.Node)
	errs := validation.ValidateNode(node)
	return append(errs, validation.ValidateNodeUpdate(node, old.(*corev1.Node))...)
}

// WarningsOnCreate warns about deprecated fields.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return deprecatedFieldWarnings(obj.(*corev1.Node))
}

// WarningsOnUpdate warns about deprecated fields.
func (Strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return deprecatedFieldWarnings(obj.(*corev1.Node))
}

func deprecatedFieldWarnings(node *corev1.Node) []string {
	var warnings []string
	if node.Spec.ConfigSource != nil {
		warnings = append(warnings, "spec.configSource: the feature is removed")
	}
	if node.Spec.DoNotUseExternalID != "" {
		warnings = append(warnings, "spec.externalID: this field is deprecated, and is unused by Kubernetes")
	}
	return warnings
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"spec": {}} }

// PrepareForUpdate keeps the stored spec; status.config may only stay
// where it already was.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	node, oldNode := obj.(*corev1.Node), old.(*corev1.Node)
	node.Spec = oldNode.Spec
	if oldNode.Status.Config == nil {
		node.Status.Config = nil
	}
}

// ValidateUpdate checks what a status write may change.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateNodeUpdate(obj.(*corev1.Node), old.(*corev1.Node))
}

// WarningsOnUpdate returns none for status writes.
func (StatusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// GetAttrs returns a node's labels and selectable fields: metadata.name
// and spec.unschedulable.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return nil, nil, fmt.Errorf("not a node: %T", obj)
	}
	ls, fs, err := generic.DefaultClusterScopedAttr(node)
	if err != nil {
		return nil, nil, err
	}
	fs["spec.unschedulable"] = strconv.FormatBool(node.Spec.Unschedulable)
	return ls, fs, nil
}
