package generic

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

const (
	// defaultDeleteCollectionWorkers: a few deletes at once speed up large
	// collections without crowding storage.
	defaultDeleteCollectionWorkers = 4
	// deleteCollectionPageSize bounds each list DeleteCollection reads.
	deleteCollectionPageSize = 10000
)

// DeleteCollection deletes every object the list options select, a few at
// a time, and returns the list of them. It is not atomic: on an error some
// objects may already be gone. Objects that vanish meanwhile are skipped.
// A Limit in listOptions deletes one page only.
func (s *Store) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	list, items, err := s.listAllPages(ctx, listOptions)
	if err != nil {
		return nil, err
	}
	if err := s.deleteItems(ctx, items, deleteValidation, options); err != nil {
		return nil, err
	}
	return list, nil
}

// listAllPages reads the selection page by page (one page when the client
// set a limit) and returns the first page's list holding every item.
func (s *Store) listAllPages(ctx context.Context, listOptions *metainternalversion.ListOptions) (runtime.Object, []runtime.Object, error) {
	opts := &metainternalversion.ListOptions{}
	if listOptions != nil {
		opts = listOptions.DeepCopy()
	}
	onePage := opts.Limit > 0
	if !onePage {
		opts.Limit = deleteCollectionPageSize
	}
	var first runtime.Object
	var items []runtime.Object
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		page, err := s.List(ctx, opts)
		if err != nil {
			return nil, nil, err
		}
		pageItems, err := meta.ExtractList(page)
		if err != nil {
			return nil, nil, apierrors.NewInternalError(err)
		}
		items = append(items, pageItems...)
		if first == nil {
			first = page
		}
		l, err := meta.ListAccessor(page)
		if err != nil {
			return nil, nil, apierrors.NewInternalError(err)
		}
		if onePage || l.GetContinue() == "" {
			break
		}
		// Later pages continue the first one's snapshot.
		opts.Continue = l.GetContinue()
		opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
	}
	if err := meta.SetList(first, items); err != nil {
		return nil, nil, apierrors.NewInternalError(err)
	}
	if l, err := meta.ListAccessor(first); err == nil {
		l.SetContinue("")
		l.SetRemainingItemCount(nil)
	}
	return first, items, nil
}

// deleteItems deletes items with a bounded number of goroutines and
// returns the first error, after which no new delete starts; every
// goroutine has ended when it returns.
func (s *Store) deleteItems(ctx context.Context, items []runtime.Object, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) error {
	workers := s.DeleteCollectionWorkers
	if workers < 1 {
		workers = defaultDeleteCollectionWorkers
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	next := make(chan runtime.Object)
	var wg sync.WaitGroup
	for range min(workers, len(items)) {
		wg.Go(func() {
			for item := range next {
				if err := s.deleteItem(ctx, item, deleteValidation, options); err != nil {
					cancel(err) // only the first cause is kept
				}
			}
		})
	}
	feed(ctx, next, items)
	wg.Wait()
	return context.Cause(ctx)
}

// feed hands items to the workers until they are all taken or ctx ends,
// then closes next.
func feed(ctx context.Context, next chan<- runtime.Object, items []runtime.Object) {
	defer close(next)
	for _, item := range items {
		select {
		case next <- item:
		case <-ctx.Done():
			return
		}
	}
}

func (s *Store) deleteItem(ctx context.Context, item runtime.Object, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) error {
	m, err := meta.Accessor(item)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	// The item's own namespace: a collection read across namespaces spans
	// several.
	if ns := m.GetNamespace(); ns != "" {
		ctx = request.WithNamespace(ctx, ns)
	}
	_, _, err = s.Delete(ctx, m.GetName(), deleteValidation, options)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
