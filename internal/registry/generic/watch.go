package generic

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
)

// Watch streams changes to the objects the selectors pick, from
// options.ResourceVersion on; a metadata.name field selector watches a
// single key. Bookmarks are asked of storage when the client allows them,
// and sendInitialEvents is passed through for watch-list.
func (s *Store) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	if options == nil {
		options = &metainternalversion.ListOptions{}
	}
	p := s.predicate(options)
	p.AllowWatchBookmarks = options.AllowWatchBookmarks
	key, recursive := s.selectionKey(ctx, p)
	opts := storage.ListOptions{
		ResourceVersion:   options.ResourceVersion,
		Predicate:         p,
		Recursive:         recursive,
		ProgressNotify:    options.AllowWatchBookmarks,
		SendInitialEvents: options.SendInitialEvents,
	}
	w, err := s.Storage.Watch(ctx, key, opts)
	if err != nil {
		return nil, s.interpretStorageError(ctx, err, storageErrorContext{op: opWatch, resource: s.qualifiedResource(ctx)})
	}
	return w, nil
}
