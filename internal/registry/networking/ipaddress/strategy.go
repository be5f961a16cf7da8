// Package ipaddress is the REST storage of networking.k8s.io/v1
// IPAddresses: cluster-scoped objects named by an IP address, one per
// allocated service cluster IP (see core/service/ipallocator).
package ipaddress

import (
	"context"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/networking/validation"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how IPAddresses are written: cluster-scoped, no status,
// a parentRef that never changes.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
)

// NewStrategy returns the IPAddress strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new IPAddress.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateIPAddress(obj.(*networkingv1.IPAddress))
}

// ValidateUpdate checks the new object and that parentRef is unchanged.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ip := obj.(*networkingv1.IPAddress)
	errs := validation.ValidateIPAddress(ip)
	return append(errs, validation.ValidateIPAddressUpdate(ip, old.(*networkingv1.IPAddress))...)
}

// Table prints NAME PARENTREF. Upstream declares those two columns and
// fills a third cell with the age, which kubectl does not show; kapi
// sends the same rows.
func Table() *printers.Table[*networkingv1.IPAddress] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "ParentRef", Type: "string", Description: networkingv1.IPAddressSpec{}.SwaggerDoc()["parentRef"]},
	}
	return printers.New(columns, func(ip *networkingv1.IPAddress, now time.Time) []any {
		return []any{ip.Name, parentRefString(ip.Spec.ParentRef), printers.Age(ip.CreationTimestamp, now)}
	})
}

// parentRefString renders resource[.group][/namespace]/name.
func parentRefString(ref *networkingv1.ParentReference) string {
	if ref == nil {
		return "<none>"
	}
	s := strings.ToLower(schema.GroupResource{Group: ref.Group, Resource: ref.Resource}.String())
	if ref.Namespace != "" {
		s += "/" + ref.Namespace
	}
	return s + "/" + ref.Name
}
