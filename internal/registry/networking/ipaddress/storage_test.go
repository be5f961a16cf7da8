package ipaddress

import (
	"context"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	store, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	if store.NamespaceScoped() || store.ShortNames()[0] != "ip" {
		t.Errorf("scope/short names: %v %v", store.NamespaceScoped(), store.ShortNames())
	}
	created := registrytest.Golden(t, scheme, store, "testdata", "ipaddress").(*networkingv1.IPAddress)
	ctx := registrytest.NamespaceContext("")
	ref := &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "web"}
	tests := []struct {
		name, ip string
		ref      *networkingv1.ParentReference
		field    string
	}{
		{"not an IP", "web", ref, "metadata.name"},
		{"not canonical", "2001:db8:0::1", ref, "metadata.name"},
		{"no parentRef", "10.0.0.21", nil, "spec.parentRef"},
		{"no resource", "10.0.0.21", &networkingv1.ParentReference{Name: "web"}, "spec.parentRef.resource"},
		{"no name", "10.0.0.21", &networkingv1.ParentReference{Resource: "services"}, "spec.parentRef.name"},
	}
	for _, tt := range tests {
		_, err := store.Create(ctx, &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: tt.ip}, Spec: networkingv1.IPAddressSpec{ParentRef: tt.ref}}, nil, nil)
		if !apierrors.IsInvalid(err) || err.(apierrors.APIStatus).Status().Details.Causes[0].Field != tt.field {
			t.Errorf("%s: %v, want Invalid at %s", tt.name, err, tt.field)
		}
	}
	// parentRef is immutable.
	upd := created.DeepCopy()
	upd.Spec.ParentRef.Name = "other"
	_, _, err = store.Update(ctx, upd.Name, rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil)
	if !apierrors.IsInvalid(err) || err.(apierrors.APIStatus).Status().Details.Causes[0].Field != "spec.parentRef" {
		t.Errorf("parentRef change: %v", err)
	}
	table, err := Table().ConvertToTable(context.Background(), created, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := table.Rows[0].Cells[1]; got != "services/default/web" {
		t.Errorf("PARENTREF = %v", got)
	}
}
