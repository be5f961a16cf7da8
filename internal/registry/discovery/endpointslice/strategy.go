// Package endpointslice is the REST storage of discovery.k8s.io/v1
// EndpointSlices: strategy (generation counts content changes), table and
// store.
package endpointslice

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/discovery/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how EndpointSlices are written. They have no status;
// metadata.generation starts at 1 and grows whenever anything but the
// metadata (or the labels) changes, as upstream.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
)

// NewStrategy returns the EndpointSlice strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate sets generation 1.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*discoveryv1.EndpointSlice).Generation = 1
}

// PrepareForUpdate bumps generation when the content or the labels
// changed.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
	s.Generation = o.Generation
	if s.AddressType != o.AddressType ||
		!equality.Semantic.DeepEqual(s.Endpoints, o.Endpoints) ||
		!equality.Semantic.DeepEqual(s.Ports, o.Ports) ||
		!equality.Semantic.DeepEqual(s.Labels, o.Labels) {
		s.Generation++
	}
}

// Validate checks a new EndpointSlice.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateEndpointSlice(obj.(*discoveryv1.EndpointSlice))
}

// ValidateUpdate checks the new slice; addressType is immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateEndpointSliceUpdate(obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice))
}

// NewStorage returns the storage of endpointslices.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &discoveryv1.EndpointSlice{} },
		NewListFunc:    func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
		Resource:       discoveryv1.Resource("endpointslices"),
		Singular:       discoveryv1.Resource("endpointslice"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"endpointslices": store}, nil
}

// Table prints NAME ADDRESSTYPE PORTS ENDPOINTS AGE.
func Table() *printers.Table[*discoveryv1.EndpointSlice] {
	doc := discoveryv1.EndpointSlice{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "AddressType", Type: "string", Description: doc["addressType"]},
		{Name: "Ports", Type: "string", Description: doc["ports"]},
		{Name: "Endpoints", Type: "string", Description: doc["endpoints"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(s *discoveryv1.EndpointSlice, now time.Time) []any {
		return []any{s.Name, string(s.AddressType), formatPorts(s.Ports), formatEndpoints(s.Endpoints), printers.Age(s.CreationTimestamp, now)}
	})
}

// shown is how many ports or addresses a cell lists before "+ N more...".
const shown = 3

func formatPorts(ports []discoveryv1.EndpointPort) string {
	var list []string
	for _, p := range ports {
		if len(list) == shown {
			break
		}
		switch {
		case p.Port != nil:
			list = append(list, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			list = append(list, *p.Name)
		default:
			list = append(list, "*")
		}
	}
	return withMore(list, len(ports))
}

func formatEndpoints(endpoints []discoveryv1.Endpoint) string {
	var list []string
	count := 0
	for _, ep := range endpoints {
		for _, addr := range ep.Addresses {
			if len(list) < shown {
				list = append(list, addr)
			}
			count++
		}
	}
	return withMore(list, count)
}

func withMore(list []string, count int) string {
	out := strings.Join(list, ",")
	if count > shown {
		return fmt.Sprintf("%s + %d more...", out, count-shown)
	}
	if out == "" {
		return "<unset>"
	}
	return out
}
