package limitrange

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of limit ranges: "limitranges".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.LimitRange{} },
		NewListFunc:    func() runtime.Object { return &corev1.LimitRangeList{} },
		Resource:       corev1.Resource("limitranges"),
		Singular:       corev1.Resource("limitrange"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"limits"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"limitranges": store}, nil
}

// Table prints NAME CREATED AT, the creation time in RFC 3339.
func Table() *printers.Table[*corev1.LimitRange] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Created At", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	}
	return printers.New(columns, func(lr *corev1.LimitRange, _ time.Time) []any {
		return []any{lr.Name, lr.CreationTimestamp.UTC().Format(time.RFC3339)}
	})
}
