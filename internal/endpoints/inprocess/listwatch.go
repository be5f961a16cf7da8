package inprocess

import (
	"context"
	"net/http"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// listWatch is one informer's lister and watcher.
type listWatch struct {
	r         *Resources
	kinds     []schema.GroupVersionKind // the kinds of the informer's type
	objType   reflect.Type
	namespace string
	tweak     func(*metav1.ListOptions)
}

var (
	_ cache.ListerWatcher            = (*listWatch)(nil)
	_ cache.ListerWatcherWithContext = (*listWatch)(nil)
)

func (lw *listWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

func (lw *listWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

// ListWithContext lists as GET of the collection would.
func (lw *listWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	opts.Watch = false
	res, ctx, o, err := lw.request(ctx, opts)
	if err != nil {
		return nil, err
	}
	list, err := res.lister.List(ctx, o)
	if err != nil {
		return nil, err
	}
	return lw.r.listForInformer(list, res, lw.objType)
}

// WatchWithContext watches as GET of the collection with watch=true
// would; the watch lasts until Stop or until storage ends it (there is
// no request timeout to honour in-process).
func (lw *listWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	res, ctx, o, err := lw.request(ctx, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w, err := res.watcher.Watch(ctx, o)
	if err != nil {
		cancel()
		return nil, err
	}
	return newEventStream(ctx, cancel, w, func(obj runtime.Object) (runtime.Object, error) {
		return lw.r.forInformer(obj, res, lw.objType)
	}), nil
}

// request resolves the resource and turns the informer's options into the
// ones the storage takes, as the HTTP handlers do after decoding a query.
func (lw *listWatch) request(ctx context.Context, opts metav1.ListOptions) (*resource, context.Context, *metainternalversion.ListOptions, error) {
	res, ok := lw.r.lookup(lw.kinds)
	if !ok {
		return nil, nil, nil, apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false)
	}
	isWatch := opts.Watch
	if lw.tweak != nil {
		lw.tweak(&opts)
	}
	opts.Watch = isWatch
	o := &metainternalversion.ListOptions{}
	if err := metainternalversion.Convert_v1_ListOptions_To_internalversion_ListOptions(&opts, o, nil); err != nil {
		return nil, nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if err := handlers.CompleteListOptions(o, res.kind, lw.r.scheme); err != nil {
		return nil, nil, nil, err
	}
	verb := "list"
	if isWatch {
		verb = "watch"
	}
	info := &request.RequestInfo{IsResourceRequest: true, Verb: verb,
		APIGroup: res.gvr.Group, APIVersion: res.gvr.Version, Resource: res.gvr.Resource}
	if res.namespaced {
		info.Namespace = lw.namespace
		ctx = request.WithNamespace(ctx, lw.namespace)
	}
	// The registry names the resource of the request in its errors.
	return res, request.WithRequestInfo(ctx, info), o, nil
}
