package servicecidr

import (
	"context"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
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
	store := storages["servicecidrs"].(*generic.Store)
	status := storages["servicecidrs/status"].(*generic.StatusREST)
	created := registrytest.Golden(t, scheme, store, "testdata", "servicecidr").(*networkingv1.ServiceCIDR)
	if len(created.Status.Conditions) != 0 {
		t.Errorf("create kept status %+v", created.Status)
	}
	ctx := registrytest.NamespaceContext("")
	tests := []struct {
		name  string
		cidrs []string
		field string
	}{
		{"none", nil, "spec.cidrs"},
		{"bad", []string{"10.0.0.0/33"}, "spec.cidrs[0]"},
		{"not canonical", []string{"10.0.0.1/24"}, "spec.cidrs[0]"},
		{"same family twice", []string{"10.0.0.0/24", "10.1.0.0/24"}, "spec.cidrs"},
		{"three", []string{"10.0.0.0/24", "fd00::/64", "10.1.0.0/24"}, "spec.cidrs"},
	}
	for _, tt := range tests {
		_, err := store.Create(ctx, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: tt.cidrs}}, nil, nil)
		if !apierrors.IsInvalid(err) || err.(apierrors.APIStatus).Status().Details.Causes[0].Field != tt.field {
			t.Errorf("%s: %v, want Invalid at %s", tt.name, err, tt.field)
		}
	}
	// CIDRs are immutable; a second family may be added.
	upd := created.DeepCopy()
	upd.Spec.CIDRs = []string{"10.2.0.0/24"}
	if _, _, err := store.Update(ctx, "extra", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("changing a CIDR: %v", err)
	}
	upd.Spec.CIDRs = []string{"10.1.0.0/24", "fd00::/108"}
	obj, _, err := store.Update(ctx, "extra", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, nil)
	if err != nil {
		t.Fatalf("adding a family: %v", err)
	}
	// Status writes keep spec; main writes keep status.
	st := obj.(*networkingv1.ServiceCIDR).DeepCopy()
	st.Spec.CIDRs = []string{"10.9.0.0/24"}
	st.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	obj, _, err = status.Update(ctx, "extra", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*networkingv1.ServiceCIDR)
	if len(got.Spec.CIDRs) != 2 || got.Spec.CIDRs[0] != "10.1.0.0/24" || len(got.Status.Conditions) != 1 {
		t.Errorf("status update: %+v", got)
	}
	main := got.DeepCopy()
	main.Status.Conditions = nil
	obj, _, err = store.Update(ctx, "extra", rest.DefaultUpdatedObjectInfo(main), nil, nil, false, nil)
	if err != nil || len(obj.(*networkingv1.ServiceCIDR).Status.Conditions) != 1 {
		t.Errorf("main update dropped status: %v", err)
	}
	table, _ := Table().ConvertToTable(context.Background(), got, nil)
	if table.Rows[0].Cells[1] != "10.1.0.0/24,fd00::/108" {
		t.Errorf("CIDRS = %v", table.Rows[0].Cells[1])
	}
}
