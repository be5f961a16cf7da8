package controlplane

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi"
	"github.com/kapi-dev/kapi/internal/version"
)

// newOpenAPIService is the OpenAPI service of the core server, named as
// upstream names its documents.
func newOpenAPIService(scheme *runtime.Scheme) *openapi.Service {
	return openapi.NewService(scheme, openapi.Info{Title: "Kubernetes", Version: version.Get().GitVersion})
}

// lazyTypeConverter is the server-side apply type converter of the
// built-in kinds. Building the converter of every kind costs tens of
// milliseconds of CPU, most of a drop-in's start, while a server's
// writes before it is ready (its bootstrap objects) touch a handful of
// kinds. So until the full converter is built, a kind is converted by a
// converter of that kind alone, built on its first use; warm builds the
// full one in the background (the server calls it once ready; it waits
// warmDelay), which serves every kind first used after that. A kind keeps the converter it
// started with: structured-merge-diff compares and merges only typed
// values of the same schema, and a write converts the stored object and
// the new one separately, so switching a kind's converter between the
// two would fail the write. Both read the same definitions, so a kind's
// typed value, and so its managed fields, is the same either way. A
// process that already built the full converter (a test binary's later
// servers) uses it from the start.
type lazyTypeConverter struct {
	once   sync.Once
	build  func() (managedfields.TypeConverter, error)
	logger *slog.Logger
	full   atomic.Pointer[managedfields.TypeConverter]

	// kind builds the converter of one kind; nil: none, always the full.
	kind  func(schema.GroupVersionKind) (managedfields.TypeConverter, error)
	mu    sync.Mutex
	kinds map[schema.GroupVersionKind]*kindConverter
}

// kindConverter is one kind's converter, built once; tc is nil when it
// could not be built (the full converter serves that kind).
type kindConverter struct {
	once sync.Once
	tc   managedfields.TypeConverter
}

func newLazyTypeConverter(build func() (managedfields.TypeConverter, error), logger *slog.Logger) *lazyTypeConverter {
	return &lazyTypeConverter{build: build, logger: logger}
}

// newOpenAPITypeConverter is oapi's converter, lazily and per kind until
// the full one is built.
func newOpenAPITypeConverter(oapi *openapi.Service, logger *slog.Logger) *lazyTypeConverter {
	l := newLazyTypeConverter(oapi.TypeConverter, logger)
	if built := oapi.BuiltTypeConverter(); built != nil {
		var tc managedfields.TypeConverter = newTrustedTypes(built)
		l.full.Store(&tc)
	} else {
		l.kind = oapi.KindTypeConverter
		l.kinds = map[schema.GroupVersionKind]*kindConverter{}
	}
	return l
}

// get returns the full converter, building it on the first call.
func (l *lazyTypeConverter) get() managedfields.TypeConverter {
	l.once.Do(func() {
		if tc := l.full.Load(); tc != nil {
			return
		}
		start := time.Now()
		tc, err := l.build()
		if err != nil {
			// Without type information every field is tracked as
			// deduced from the objects themselves: apply still works,
			// with atomic lists.
			l.logger.Error("building the server-side apply type converter failed; lists are atomic", "err", err)
			tc = managedfields.NewDeducedTypeConverter()
		}
		tc = newTrustedTypes(tc)
		l.full.Store(&tc)
		l.logger.Debug("built the server-side apply type converter", "duration", time.Since(start))
	})
	return *l.full.Load()
}

// warmDelay is how long after ready the full converter is built: not
// in the first moments, when a test's or envtest's first requests
// compete for the CPU, and not at all by a server that stops before
// (a test's; a process builds it once for all its servers). Kinds first
// used before get converters of their own.
const warmDelay = time.Second

// warm builds the full converter warmDelay from now, unless ctx ends.
func (l *lazyTypeConverter) warm(ctx context.Context) {
	t := time.AfterFunc(warmDelay, func() {
		if ctx.Err() == nil {
			l.get()
		}
	})
	context.AfterFunc(ctx, func() { t.Stop() })
}

// forKind returns gvk's own converter if it has one, or makes it unless
// the full one is built by then; nil when gvk is to use the full one.
func (l *lazyTypeConverter) forKind(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	l.mu.Lock()
	k := l.kinds[gvk]
	if k == nil {
		if l.full.Load() != nil {
			l.mu.Unlock()
			return nil
		}
		k = &kindConverter{}
		l.kinds[gvk] = k
	}
	l.mu.Unlock()
	k.once.Do(func() {
		tc, err := l.kind(gvk)
		if err != nil {
			l.logger.Debug("no type converter of its own for a kind; building the full one", "kind", gvk, "err", err)
			return
		}
		k.tc = newTrustedTypes(tc)
	})
	return k.tc
}

func (l *lazyTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if l.kind != nil {
		if tc := l.forKind(obj.GetObjectKind().GroupVersionKind()); tc != nil {
			return tc.ObjectToTyped(obj, opts...)
		}
	}
	return l.get().ObjectToTyped(obj, opts...)
}

// TypedToObject needs no schema: a typed value becomes unstructured the
// same way whichever converter made it (the deduced one does just that).
func (l *lazyTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return managedfields.NewDeducedTypeConverter().TypedToObject(v)
}
