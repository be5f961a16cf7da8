package service

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE and, with -o
// wide, SELECTOR, as kube-apiserver does.
func Table() *printers.Table[*corev1.Service] {
	spec := corev1.ServiceSpec{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Type", Type: "string", Description: spec["type"]},
		{Name: "Cluster-IP", Type: "string", Description: spec["clusterIP"]},
		{Name: "External-IP", Type: "string", Description: spec["externalIPs"]},
		{Name: "Port(s)", Type: "string", Description: spec["ports"]},
		printers.AgeColumn(),
		{Name: "Selector", Type: "string", Priority: 1, Description: spec["selector"]},
	}
	return printers.New(columns, func(svc *corev1.Service, now time.Time) []any {
		clusterIP := "<none>"
		if len(svc.Spec.ClusterIPs) > 0 {
			clusterIP = svc.Spec.ClusterIPs[0]
		}
		ports := portsString(svc.Spec.Ports)
		if ports == "" {
			ports = "<none>"
		}
		return []any{svc.Name, string(svc.Spec.Type), clusterIP, externalIP(svc), ports,
			printers.Age(svc.CreationTimestamp, now), labels.FormatLabels(svc.Spec.Selector)}
	})
}

// externalIP is the EXTERNAL-IP cell: external IPs, the load balancer's
// addresses (or <pending>), or the external name.
func externalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		lb := loadBalancerAddresses(svc.Status.LoadBalancer)
		results := append(lb, svc.Spec.ExternalIPs...)
		if len(results) == 0 {
			return "<pending>"
		}
		return strings.Join(results, ",")
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// loadBalancerAddresses lists each ingress's IP, or hostname, sorted and
// without duplicates.
func loadBalancerAddresses(status corev1.LoadBalancerStatus) []string {
	var out []string
	for _, ing := range status.Ingress {
		switch {
		case ing.IP != "":
			out = append(out, ing.IP)
		case ing.Hostname != "":
			out = append(out, ing.Hostname)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// portsString renders ports as port[:nodePort]/protocol, comma-separated.
func portsString(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			pieces[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}
