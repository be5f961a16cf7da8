package endpointslice

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storages, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	store := storages["endpointslices"].(*generic.Store)
	created := registrytest.Golden(t, scheme, store, "testdata", "endpointslice").(*discoveryv1.EndpointSlice)
	if created.Generation != 1 || *created.Ports[0].Name != "" || *created.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("generation %d ports %+v", created.Generation, created.Ports)
	}
	ctx := registrytest.NamespaceContext("default")

	update := func(mutate func(*discoveryv1.EndpointSlice)) (*discoveryv1.EndpointSlice, error) {
		obj, err := store.Get(ctx, "web-abc12", nil)
		if err != nil {
			t.Fatal(err)
		}
		s := obj.(*discoveryv1.EndpointSlice).DeepCopy()
		mutate(s)
		out, _, err := store.Update(ctx, s.Name, rest.DefaultUpdatedObjectInfo(s), nil, nil, false, nil)
		if err != nil {
			return nil, err
		}
		return out.(*discoveryv1.EndpointSlice), nil
	}
	// Generation counts content changes, not annotations.
	s, err := update(func(s *discoveryv1.EndpointSlice) { s.Annotations = map[string]string{"a": "b"} })
	if err != nil || s.Generation != 1 {
		t.Fatalf("annotation change: generation %v, %v", s, err)
	}
	s, err = update(func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = []string{"10.244.0.6"} })
	if err != nil || s.Generation != 2 {
		t.Fatalf("endpoint change: %v, %v", s, err)
	}
	// addressType is immutable.
	_, err = update(func(s *discoveryv1.EndpointSlice) {
		s.AddressType = discoveryv1.AddressTypeFQDN
		s.Endpoints[0].Addresses = []string{"web.example.com"}
	})
	if !apierrors.IsInvalid(err) || causeField(err) != "addressType" {
		t.Errorf("addressType change: %v", err)
	}

	tests := []struct {
		name   string
		mutate func(*discoveryv1.EndpointSlice)
		field  string
	}{
		{"no address type", func(s *discoveryv1.EndpointSlice) { s.AddressType = "" }, "addressType"},
		{"bad address type", func(s *discoveryv1.EndpointSlice) { s.AddressType = "IPv5" }, "addressType"},
		{"no addresses", func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = nil }, "endpoints[0].addresses"},
		{"IPv6 in an IPv4 slice", func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = []string{"fd00::1"} }, "endpoints[0].addresses[0]"},
		{"bad port name", func(s *discoveryv1.EndpointSlice) { s.Ports[0].Name = ptr.To("Bad_Name") }, "ports[0].name"},
		{"bad protocol", func(s *discoveryv1.EndpointSlice) { s.Ports[0].Protocol = ptr.To(corev1.Protocol("ICMP")) }, "ports[0].protocol"},
		{"duplicate port names", func(s *discoveryv1.EndpointSlice) { s.Ports = append(s.Ports, s.Ports[0]) }, "ports[1].name"},
	}
	for _, tt := range tests {
		s := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: "x", Namespace: "default"},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}},
			Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(""), Port: ptr.To[int32](80), Protocol: ptr.To(corev1.ProtocolTCP)}},
		}
		tt.mutate(s)
		_, err := store.Create(ctx, s, nil, nil)
		if !apierrors.IsInvalid(err) || causeField(err) != tt.field {
			t.Errorf("%s: %v, want Invalid at %s", tt.name, err, tt.field)
		}
	}
}

func causeField(err error) string {
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return ""
	}
	return status.Status().Details.Causes[0].Field
}

func TestTable(t *testing.T) {
	now := time.Now()
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "s", CreationTimestamp: metav1.NewTime(now)},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1", "10.0.0.2"}}, {Addresses: []string{"10.0.0.3", "10.0.0.4"}}},
		Ports:       []discoveryv1.EndpointPort{{Port: ptr.To[int32](80)}, {Name: ptr.To("dns")}},
	}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"s", "IPv4", "80,dns", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...", "0s"}
	for i, w := range want {
		if table.Rows[0].Cells[i] != w {
			t.Errorf("cell %d = %v, want %v", i, table.Rows[0].Cells[i], w)
		}
	}
	empty := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4}
	table, _ = Table().ConvertToTable(context.Background(), empty, nil)
	if table.Rows[0].Cells[2] != "<unset>" || table.Rows[0].Cells[3] != "<unset>" {
		t.Errorf("empty slice cells %v", table.Rows[0].Cells)
	}
}
