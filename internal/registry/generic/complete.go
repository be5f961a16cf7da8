package generic

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// CompleteWithOptions checks that the resource described itself fully and
// fills what it left out: the key functions from the resource prefix and
// scope, the selection predicate from options.AttrFunc (or the default
// attributes), and the storage from options.RESTOptions.
func (s *Store) CompleteWithOptions(options *StoreOptions) error {
	if err := s.validateDescription(); err != nil {
		return err
	}
	if options == nil || options.RESTOptions == nil {
		return fmt.Errorf("options for %s must have RESTOptions set", s.DefaultQualifiedResource)
	}
	namespaced := s.NamespaceScoped()

	attrFunc := options.AttrFunc
	if attrFunc == nil {
		attrFunc = DefaultClusterScopedAttr
		if namespaced {
			attrFunc = DefaultNamespaceScopedAttr
		}
	}
	if s.PredicateFunc == nil {
		s.PredicateFunc = func(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
			return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: attrFunc}
		}
	}

	opts, err := options.RESTOptions.GetRESTOptions(s.DefaultQualifiedResource, s.NewFunc())
	if err != nil {
		return err
	}
	prefix, err := resourcePrefix(opts.ResourcePrefix)
	if err != nil {
		return fmt.Errorf("store for %s: %w", s.DefaultQualifiedResource, err)
	}
	if s.KeyRootFunc == nil {
		s.setKeyFuncs(prefix, namespaced)
	}
	if s.Storage == nil {
		if opts.Storage == nil {
			return fmt.Errorf("REST options for %s have no Storage", s.DefaultQualifiedResource)
		}
		if s.Storage, err = opts.Storage(s.NewFunc, s.NewListFunc); err != nil {
			return fmt.Errorf("storage for %s: %w", s.DefaultQualifiedResource, err)
		}
		if d, ok := s.Storage.(StorageDestroyer); ok && s.DestroyFunc == nil {
			s.DestroyFunc = d.Destroy
		}
	}
	return nil
}

// StorageDestroyer is a storage holding what must be released when its
// store is dropped (a watch cache: its goroutines, its storage watch and a
// copy of every object). CompleteWithOptions makes the store's Destroy
// release it; wrappers of such a storage forward Destroy.
type StorageDestroyer interface {
	Destroy()
}

// validateDescription reports the first field a resource forgot.
func (s *Store) validateDescription() error {
	r := s.DefaultQualifiedResource
	switch {
	case r.Empty():
		return fmt.Errorf("store %T must have a non-empty qualified resource", s)
	case s.SingularQualifiedResource.Empty():
		return fmt.Errorf("store for %s must have a non-empty singular qualified resource", r)
	case r.Group != s.SingularQualifiedResource.Group:
		return fmt.Errorf("store for %s: singular and plural qualified resources must have the same group", r)
	case s.NewFunc == nil:
		return fmt.Errorf("store for %s must have NewFunc set", r)
	case s.NewListFunc == nil:
		return fmt.Errorf("store for %s must have NewListFunc set", r)
	case (s.KeyRootFunc == nil) != (s.KeyFunc == nil):
		return fmt.Errorf("store for %s must set both KeyRootFunc and KeyFunc or neither", r)
	case s.CreateStrategy == nil && s.UpdateStrategy == nil:
		return fmt.Errorf("store for %s must have CreateStrategy or UpdateStrategy set", r)
	case s.DeleteStrategy == nil:
		return fmt.Errorf("store for %s must have DeleteStrategy set", r)
	}
	return nil
}

// resourcePrefix normalizes the key folder to "/<name>" with no trailing
// slash; an empty folder would put every resource in one key space.
func resourcePrefix(p string) (string, error) {
	prefix := "/" + strings.Trim(p, "/")
	if prefix == "/" {
		return "", fmt.Errorf("invalid resource prefix %q", p)
	}
	return prefix, nil
}

func (s *Store) setKeyFuncs(prefix string, namespaced bool) {
	if namespaced {
		s.KeyRootFunc = func(ctx context.Context) string { return NamespaceKeyRootFunc(ctx, prefix) }
		s.KeyFunc = func(ctx context.Context, name string) (string, error) { return NamespaceKeyFunc(ctx, prefix, name) }
		return
	}
	s.KeyRootFunc = func(ctx context.Context) string { return NoNamespaceKeyRootFunc(ctx, prefix) }
	s.KeyFunc = func(ctx context.Context, name string) (string, error) { return NoNamespaceKeyFunc(ctx, prefix, name) }
}

// DefaultClusterScopedAttr gives every cluster-scoped object its labels and
// the one field all of them can be selected by, metadata.name.
func DefaultClusterScopedAttr(obj runtime.Object) (labels.Set, fields.Set, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, err
	}
	return labels.Set(m.GetLabels()), fields.Set{"metadata.name": m.GetName()}, nil
}

// DefaultNamespaceScopedAttr adds metadata.namespace to the cluster-scoped
// attributes.
func DefaultNamespaceScopedAttr(obj runtime.Object) (labels.Set, fields.Set, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, err
	}
	return labels.Set(m.GetLabels()), fields.Set{
		"metadata.name":      m.GetName(),
		"metadata.namespace": m.GetNamespace(),
	}, nil
}
