package controlplane

import (
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
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

// lazyTypeConverter builds the server-side apply type converter on first
// use, so startup does not wait for it; warm starts building it at once
// in the background, and the first write waits only for what is left.
type lazyTypeConverter struct {
	once   sync.Once
	build  func() (managedfields.TypeConverter, error)
	logger *slog.Logger
	tc     managedfields.TypeConverter
}

func newLazyTypeConverter(build func() (managedfields.TypeConverter, error), logger *slog.Logger) *lazyTypeConverter {
	return &lazyTypeConverter{build: build, logger: logger}
}

func (l *lazyTypeConverter) get() managedfields.TypeConverter {
	l.once.Do(func() {
		start := time.Now()
		tc, err := l.build()
		if err != nil {
			// Without type information every field is tracked as
			// deduced from the objects themselves: apply still works,
			// with atomic lists.
			l.logger.Error("building the server-side apply type converter failed; lists are atomic", "err", err)
			tc = managedfields.NewDeducedTypeConverter()
		}
		l.tc = tc
		l.logger.Debug("built the server-side apply type converter", "duration", time.Since(start))
	})
	return l.tc
}

// warm builds the converter in the background.
func (l *lazyTypeConverter) warm() { go l.get() }

func (l *lazyTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return l.get().ObjectToTyped(obj, opts...)
}

func (l *lazyTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return l.get().TypedToObject(v)
}
