package resourceclaim

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) map[string]rest.Storage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["resourceclaims"].(rest.Creater), "testdata", "minimal")
}

func valid() *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name:    "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
		}}}},
	}
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestValidate(t *testing.T) {
	req := func(c *resourcev1.ResourceClaim) *resourcev1.DeviceRequest { return &c.Spec.Devices.Requests[0] }
	tests := []struct {
		name   string
		mutate func(*resourcev1.ResourceClaim)
		want   []string
	}{
		{"valid", func(*resourcev1.ResourceClaim) {}, nil},
		{"no name", func(c *resourcev1.ResourceClaim) { req(c).Name = "" }, []string{"FieldValueRequired spec.devices.requests[0].name"}},
		{"neither exactly nor firstAvailable", func(c *resourcev1.ResourceClaim) { req(c).Exactly = nil }, []string{"FieldValueRequired spec.devices.requests[0]"}},
		{"zero count", func(c *resourcev1.ResourceClaim) { req(c).Exactly.Count = 0 }, []string{"FieldValueInvalid spec.devices.requests[0].exactly.count"}},
		{"count with All", func(c *resourcev1.ResourceClaim) { req(c).Exactly.AllocationMode = resourcev1.DeviceAllocationModeAll }, []string{"FieldValueInvalid spec.devices.requests[0].exactly.count"}},
		{"bad mode", func(c *resourcev1.ResourceClaim) { req(c).Exactly.AllocationMode = "Some" }, []string{"FieldValueNotSupported spec.devices.requests[0].exactly.allocationMode"}},
		{"duplicate request", func(c *resourcev1.ResourceClaim) {
			c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, *req(c))
		}, []string{"FieldValueDuplicate spec.devices.requests[1].name"}},
		{"config for unknown request", func(c *resourcev1.ResourceClaim) {
			c.Spec.Devices.Config = []resourcev1.DeviceClaimConfiguration{{Requests: []string{"cpu"}, DeviceConfiguration: resourcev1.DeviceConfiguration{
				Opaque: &resourcev1.OpaqueDeviceConfiguration{Driver: "gpu.example.com"},
			}}}
		}, []string{"FieldValueInvalid spec.devices.config[0].requests[0]", "FieldValueRequired spec.devices.config[0].opaque.parameters"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		c := valid()
		tt.mutate(c)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), c))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestSpecAndStatus(t *testing.T) {
	m := newStorage(t)
	r := m["resourceclaims"].(rest.StandardStorage)
	status := m["resourceclaims/status"].(rest.Updater)
	ctx := registrytest.NamespaceContext("ns")
	c := valid()
	c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p", UID: "1"}}
	obj, err := r.Create(ctx, c, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*resourcev1.ResourceClaim)
	if len(created.Status.ReservedFor) != 0 {
		t.Error("create kept status")
	}
	update := func(u rest.Updater, c *resourcev1.ResourceClaim) (*resourcev1.ResourceClaim, error) {
		obj, _, err := u.Update(ctx, c.Name, rest.DefaultUpdatedObjectInfo(c), nil, nil, false, &metav1.UpdateOptions{})
		if err != nil {
			return nil, err
		}
		return obj.(*resourcev1.ResourceClaim), nil
	}
	c = created.DeepCopy()
	c.Spec.Devices.Requests[0].Exactly.Count = 2
	if _, err := update(r, c); !apierrors.IsInvalid(err) {
		t.Errorf("spec change: %v, want Invalid", err)
	}
	// Reservations need an allocation.
	c = created.DeepCopy()
	c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p", UID: "1"}}
	if _, err := update(status, c); !apierrors.IsInvalid(err) {
		t.Errorf("reservation without allocation: %v, want Invalid", err)
	}
	c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: "gpu.example.com", Pool: "node-1", Device: "gpu-0"},
	}}}
	c.Spec.Devices.Requests[0].Exactly.Count = 3
	got, err := update(status, c)
	if err != nil {
		t.Fatalf("status update: %v", err)
	}
	if got.Spec.Devices.Requests[0].Exactly.Count != 1 || got.Status.Allocation == nil {
		t.Errorf("status update stored %+v", got)
	}
	if s := state(got); s != "allocated,reserved" {
		t.Errorf("state = %q", s)
	}
	// A main-resource write keeps the status.
	c = got.DeepCopy()
	c.Status = resourcev1.ResourceClaimStatus{}
	c.Labels = map[string]string{"a": "b"}
	got, err = update(r, c)
	if err != nil || got.Status.Allocation == nil {
		t.Errorf("main update: err=%v status=%+v", err, got)
	}
}

func TestTable(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := valid()
	c.CreationTimestamp = created
	table, err := Table().WithClock(func() time.Time { return created.Add(5 * time.Second) }).ConvertToTable(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"c", "pending", "5s"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
