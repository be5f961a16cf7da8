// Package admission defines the admission chain: plugins that mutate and
// then validate objects on their way into storage.
package admission

import (
	"context"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Operation is the kind of write being admitted.
type Operation string

// The operations.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Attributes describe one write to admission plugins.
type Attributes struct {
	Name        string
	Namespace   string
	Resource    schema.GroupVersionResource
	Subresource string
	Kind        schema.GroupVersionKind
	Operation   Operation
	Object      runtime.Object
	OldObject   runtime.Object
	DryRun      bool
	UserInfo    user.Info
	// Options is the request's options object: CreateOptions,
	// UpdateOptions or DeleteOptions (meta.k8s.io/v1), or the connect
	// options (PodExecOptions, ...) of a CONNECT; webhooks receive it.
	Options runtime.Object
	// Reinvocation is set by Chain.Admit for the mutating half: plugins
	// that may change the object ask for, and see, the second round.
	Reinvocation *Reinvocation
}

// MutationInterface plugins may change attrs.Object.
type MutationInterface interface {
	Admit(ctx context.Context, a *Attributes) error
}

// ValidationInterface plugins may only reject.
type ValidationInterface interface {
	Validate(ctx context.Context, a *Attributes) error
}

// Interface is a whole chain: every mutation, then every validation.
type Interface interface {
	MutationInterface
	ValidationInterface
}

// Chain runs plugins in order. A plugin may implement either or both halves.
type Chain []any

var _ Interface = Chain(nil)

// admitOnce runs every mutating plugin in order; the first error stops it.
func (c Chain) admitOnce(ctx context.Context, a *Attributes) error {
	for _, p := range c {
		if m, ok := p.(MutationInterface); ok {
			if err := m.Admit(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate runs every validating plugin in order; the first error stops it.
func (c Chain) Validate(ctx context.Context, a *Attributes) error {
	for _, p := range c {
		if v, ok := p.(ValidationInterface); ok {
			if err := v.Validate(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}
