// Package resttest holds what registry tests share: a scheme with the core
// types and a small, configurable strategy for ConfigMaps, so the generic
// store and the rest helpers can be tested without any real resource.
package resttest

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var (
	_ rest.RESTCreateStrategy         = ConfigMapStrategy{}
	_ rest.RESTUpdateStrategy         = ConfigMapStrategy{}
	_ rest.RESTDeleteStrategy         = ConfigMapStrategy{}
	_ rest.RESTGracefulDeleteStrategy = GracefulDeleteStrategy{}
)

// InvalidKey is the data key ConfigMapStrategy rejects, so tests can make
// an object invalid with a known field path: data[invalid].
const InvalidKey = "invalid"

// NewScheme returns a scheme with core/v1 and the meta options registered.
func NewScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err) // registering the generated types cannot fail
	}
	metav1.AddToGroupVersion(scheme, corev1.SchemeGroupVersion)
	return scheme
}

// ConfigMapStrategy is a create, update and delete strategy for
// corev1.ConfigMap with switches for what tests vary.
type ConfigMapStrategy struct {
	runtime.ObjectTyper
	// ClusterScoped makes the strategy treat ConfigMaps as cluster-scoped.
	ClusterScoped bool
	// CreateOnUpdate is returned by AllowCreateOnUpdate.
	CreateOnUpdate bool
	// Unconditional is returned by AllowUnconditionalUpdate.
	Unconditional bool
	// Warnings are returned on create and update.
	Warnings []string
}

// NewConfigMapStrategy returns a namespaced strategy typed by scheme.
func NewConfigMapStrategy(scheme *runtime.Scheme) ConfigMapStrategy {
	return ConfigMapStrategy{ObjectTyper: scheme}
}

// NamespaceScoped is true unless ClusterScoped is set.
func (s ConfigMapStrategy) NamespaceScoped() bool { return !s.ClusterScoped }

// PrepareForCreate changes nothing: ConfigMaps have no status.
func (ConfigMapStrategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate changes nothing.
func (ConfigMapStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate rejects the data key InvalidKey.
func (ConfigMapStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateData(obj.(*corev1.ConfigMap))
}

// ValidateUpdate applies the create rules to the new object.
func (ConfigMapStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateData(obj.(*corev1.ConfigMap))
}

func validateData(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	if v, ok := cm.Data[InvalidKey]; ok {
		errs = append(errs, field.Invalid(field.NewPath("data").Key(InvalidKey), v, "this key is reserved for tests"))
	}
	return errs
}

// WarningsOnCreate returns Warnings.
func (s ConfigMapStrategy) WarningsOnCreate(context.Context, runtime.Object) []string {
	return s.Warnings
}

// WarningsOnUpdate returns Warnings.
func (s ConfigMapStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return s.Warnings
}

// Canonicalize changes nothing.
func (ConfigMapStrategy) Canonicalize(runtime.Object) {}

// AllowCreateOnUpdate returns CreateOnUpdate.
func (s ConfigMapStrategy) AllowCreateOnUpdate() bool { return s.CreateOnUpdate }

// AllowUnconditionalUpdate returns Unconditional.
func (s ConfigMapStrategy) AllowUnconditionalUpdate() bool { return s.Unconditional }

// GracefulDeleteStrategy deletes gracefully with a default period, the way
// pods are deleted.
type GracefulDeleteStrategy struct {
	runtime.ObjectTyper
	// DefaultPeriod is used when the delete names no grace period.
	DefaultPeriod int64
}

// CheckGracefulDelete fills the default period; a period of 0 is an
// immediate delete.
func (s GracefulDeleteStrategy) CheckGracefulDelete(_ context.Context, _ runtime.Object, options *metav1.DeleteOptions) bool {
	if options.GracePeriodSeconds == nil {
		period := s.DefaultPeriod
		options.GracePeriodSeconds = &period
	}
	return *options.GracePeriodSeconds > 0
}

// Recorder collects warnings for the warning package's context.
type Recorder struct {
	Warnings []string
}

// AddWarning appends text.
func (r *Recorder) AddWarning(_, text string) { r.Warnings = append(r.Warnings, text) }
