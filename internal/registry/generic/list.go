package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/api/validation"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/storage"
)

// List returns the objects the label and field selectors pick, one page at
// a time when options.Limit is set, at the resourceVersion the options ask
// for. A request without a namespace lists every namespace.
func (s *Store) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	if options == nil {
		options = &metainternalversion.ListOptions{}
	}
	p := s.predicate(options)
	p.Limit = options.Limit
	p.Continue = options.Continue
	key, recursive := s.selectionKey(ctx, p)
	opts := storage.ListOptions{
		ResourceVersion:      options.ResourceVersion,
		ResourceVersionMatch: options.ResourceVersionMatch,
		Predicate:            p,
		Recursive:            recursive,
	}
	list := s.NewListFunc()
	if err := s.Storage.GetList(ctx, key, opts, list); err != nil {
		return nil, s.interpretStorageError(ctx, err, storageErrorContext{
			op: opList, resource: s.qualifiedResource(ctx), continued: options.Continue != "",
		})
	}
	return list, nil
}

// predicate builds the selection from the options' selectors; absent
// selectors select everything.
func (s *Store) predicate(options *metainternalversion.ListOptions) storage.SelectionPredicate {
	label, field := labels.Everything(), fields.Everything()
	if options.LabelSelector != nil {
		label = options.LabelSelector
	}
	if options.FieldSelector != nil {
		field = options.FieldSelector
	}
	return s.PredicateFunc(label, field)
}

// selectionKey is what a list or watch of p reads: the key of the one
// object a metadata.name field selector names, or else the folder of the
// request's namespace, or of the namespace a metadata.namespace field
// selector pins on a request across all namespaces.
func (s *Store) selectionKey(ctx context.Context, p storage.SelectionPredicate) (key string, recursive bool) {
	ctx = narrowNamespace(ctx, p)
	if name, ok := p.MatchesSingle(); ok {
		// Without a namespace, or with a name that cannot be a key, scan the
		// folder instead and let the selector match nothing.
		if key, err := s.KeyFunc(ctx, name); err == nil {
			return key, false
		}
	}
	return s.KeyRootFunc(ctx), true
}

func narrowNamespace(ctx context.Context, p storage.SelectionPredicate) context.Context {
	if request.NamespaceValue(ctx) != "" || p.Field == nil {
		return ctx
	}
	ns, ok := p.Field.RequiresExactMatch("metadata.namespace")
	if !ok || len(validation.ValidateNamespaceName(ns, false)) > 0 {
		return ctx
	}
	return request.WithNamespace(ctx, ns)
}
