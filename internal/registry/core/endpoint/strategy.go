// Package endpoint is the REST storage of core/v1 Endpoints: the
// strategy, the table and the store. Endpoints have no status; who writes
// them (a controller, the bootstrap controller, a user for selectorless
// services) owns the whole object.
package endpoint

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how endpoints are written: namespaced, validated, nothing
// server-owned.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
)

// NewStrategy returns the endpoints strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// Validate checks new endpoints.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateEndpoints(obj.(*corev1.Endpoints))
}

// ValidateUpdate checks the new endpoints and the metadata changes.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateEndpointsUpdate(obj.(*corev1.Endpoints), old.(*corev1.Endpoints))
}

// NewStorage returns the storage of endpoints, short name ep.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.Endpoints{} },
		NewListFunc:    func() runtime.Object { return &corev1.EndpointsList{} },
		Resource:       corev1.Resource("endpoints"),
		Singular:       corev1.Resource("endpoints"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"ep"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"endpoints": store}, nil
}

// Table prints NAME ENDPOINTS AGE.
func Table() *printers.Table[*corev1.Endpoints] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Endpoints", Type: "string", Description: corev1.Endpoints{}.SwaggerDoc()["subsets"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(ep *corev1.Endpoints, now time.Time) []any {
		return []any{ep.Name, formatEndpoints(ep), printers.Age(ep.CreationTimestamp, now)}
	})
}

// formatEndpoints lists up to three ip:port pairs (bare IPs for subsets
// without ports) and says how many more there are, as kubectl shows.
func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	const shown = 3
	var list []string
	count := 0
	add := func(s string) {
		if len(list) < shown {
			list = append(list, s)
		}
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	out := strings.Join(list, ",")
	if count > shown {
		return fmt.Sprintf("%s + %d more...", out, count-shown)
	}
	return out
}
