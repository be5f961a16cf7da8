package service

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTable(t *testing.T) {
	now := time.Now()
	base := func(typ corev1.ServiceType) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "s", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec:       corev1.ServiceSpec{Type: typ, ClusterIP: "10.0.0.5", ClusterIPs: []string{"10.0.0.5"}},
		}
	}
	lb := base(corev1.ServiceTypeLoadBalancer)
	lb.Spec.Ports = []corev1.ServicePort{{Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}, {Port: 53, Protocol: corev1.ProtocolUDP}}
	lb.Spec.Selector = map[string]string{"app": "web"}
	lbReady := lb.DeepCopy()
	lbReady.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}, {Hostname: "lb.example.com"}}
	ext := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"}}
	tests := []struct {
		svc  *corev1.Service
		want []any
	}{
		{base(corev1.ServiceTypeClusterIP), []any{"s", "ClusterIP", "10.0.0.5", "<none>", "<none>", "60m", "<none>"}},
		{lb, []any{"s", "LoadBalancer", "10.0.0.5", "<pending>", "80:30080/TCP,53/UDP", "60m", "app=web"}},
		{lbReady, []any{"s", "LoadBalancer", "10.0.0.5", "1.2.3.4,lb.example.com", "80:30080/TCP,53/UDP", "60m", "app=web"}},
		{ext, []any{"", "ExternalName", "<none>", "example.com", "<none>", "<unknown>", "<none>"}},
	}
	tbl := Table().WithClock(func() time.Time { return now })
	for _, tt := range tests {
		table, err := tbl.ConvertToTable(context.Background(), tt.svc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, table.Rows[0].Cells); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.svc.Spec.Type, diff)
		}
		if len(table.ColumnDefinitions) != 7 || table.ColumnDefinitions[6].Priority != 1 || table.ColumnDefinitions[2].Name != "Cluster-IP" {
			t.Errorf("columns %+v", table.ColumnDefinitions)
		}
	}
}
