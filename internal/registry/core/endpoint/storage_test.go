package endpoint

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	store := storages["endpoints"].(*generic.Store)
	if store.ShortNames()[0] != "ep" {
		t.Errorf("short names %v", store.ShortNames())
	}
	created := registrytest.Golden(t, scheme, store, "testdata", "endpoints").(*corev1.Endpoints)
	if p := created.Subsets[0].Ports[0].Protocol; p != corev1.ProtocolTCP {
		t.Errorf("protocol %q, want the TCP default", p)
	}

	ctx := registrytest.NamespaceContext("default")
	tests := []struct {
		name string
		ep   *corev1.Endpoints
		path string
	}{
		{"no addresses", &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Subsets: []corev1.EndpointSubset{{}}}, "subsets[0]"},
		{"bad ip", &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "x"}}}}}, "subsets[0].addresses[0].ip"},
		{"bad name", &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "A"}}, "metadata.name"},
	}
	for _, tt := range tests {
		_, err := store.Create(ctx, tt.ep, nil, nil)
		if !apierrors.IsInvalid(err) {
			t.Errorf("%s: %v, want Invalid", tt.name, err)
			continue
		}
		if causes := err.(apierrors.APIStatus).Status().Details.Causes; len(causes) == 0 || causes[0].Field != tt.path {
			t.Errorf("%s: causes %v, want %s", tt.name, causes, tt.path)
		}
	}
	// Updates are checked too.
	upd := created.DeepCopy()
	upd.Subsets[0].Ports[0].Port = 0
	if _, _, err := store.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("invalid update: %v", err)
	}
}

func TestTable(t *testing.T) {
	now := time.Now()
	tbl := Table().WithClock(func() time.Time { return now })
	addrs := []corev1.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}
	tests := []struct {
		subsets []corev1.EndpointSubset
		want    string
	}{
		{nil, "<none>"},
		{[]corev1.EndpointSubset{{Addresses: addrs}}, "10.0.0.1,10.0.0.2"},
		{[]corev1.EndpointSubset{{Addresses: addrs, Ports: []corev1.EndpointPort{{Port: 80}, {Port: 443}}}}, "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more..."},
		{[]corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "fd00::1"}}, Ports: []corev1.EndpointPort{{Port: 80}}}}, "[fd00::1]:80"},
	}
	for _, tt := range tests {
		ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "e", CreationTimestamp: metav1.NewTime(now)}, Subsets: tt.subsets}
		table, err := tbl.ConvertToTable(context.Background(), ep, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := table.Rows[0].Cells[1]; got != tt.want {
			t.Errorf("ENDPOINTS = %q, want %q", got, tt.want)
		}
	}
}
