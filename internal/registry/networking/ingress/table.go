package ingress

import (
	"fmt"
	"slices"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// loadBalancerWidth is the widest ADDRESS cell outside -o wide; server
// tables are never wide.
const loadBalancerWidth = 16

// Table prints NAME CLASS HOSTS ADDRESS PORTS AGE.
func Table() *printers.Table[*networkingv1.Ingress] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration"},
		{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule"},
		{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer"},
		{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open"},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(ing *networkingv1.Ingress, now time.Time) []any {
		class := "<none>"
		if ing.Spec.IngressClassName != nil {
			class = *ing.Spec.IngressClassName
		}
		ports := "80"
		if len(ing.Spec.TLS) != 0 {
			ports = "80, 443"
		}
		return []any{ing.Name, class, hosts(ing.Spec.Rules), address(ing.Status.LoadBalancer), ports, printers.Age(ing.CreationTimestamp, now)}
	})
}

// hosts lists up to three rule hosts, "*" when none is set.
func hosts(rules []networkingv1.IngressRule) string {
	const max = 3
	var list []string
	more := false
	for _, rule := range rules {
		if len(list) == max {
			more = true
		}
		if !more && rule.Host != "" {
			list = append(list, rule.Host)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, len(rules)-max)
	}
	return ret
}

// address lists the sorted distinct IPs or hostnames, clipped.
func address(s networkingv1.IngressLoadBalancerStatus) string {
	var list []string
	for _, ing := range s.Ingress {
		v := ing.IP
		if v == "" {
			v = ing.Hostname
		}
		if v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	slices.Sort(list)
	r := strings.Join(list, ",")
	if len(r) > loadBalancerWidth {
		r = r[:loadBalancerWidth-3] + "..."
	}
	return r
}
