package resourcequota

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func causes(err error) []string {
	var got []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		got = append(got, c.Field)
	}
	return got
}

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	store, status := storage["resourcequotas"].(*generic.Store), storage["resourcequotas/status"].(rest.Patcher)
	created := registrytest.Golden(t, scheme, store, "testdata", "resourcequota").(*corev1.ResourceQuota)
	if len(created.Status.Used) != 0 {
		t.Errorf("create kept status %v", created.Status)
	}
	if !cmp.Equal(store.ShortNames(), []string{"quota"}) {
		t.Errorf("short names %v", store.ShortNames())
	}
	ctx := registrytest.NamespaceContext("default")

	// Invalid names and quantities.
	bad := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "default"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"widgets": resource.MustParse("1")}}}
	_, err = store.Create(ctx, bad, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !cmp.Equal(causes(err), []string{"spec.hard[widgets]", "spec.hard[widgets]"}) {
		t.Errorf("bad name: %v", err)
	}

	// The main resource keeps status; the status subresource keeps spec.
	upd := created.DeepCopy()
	upd.Spec.Hard["pods"] = resource.MustParse("20")
	upd.Status.Used = corev1.ResourceList{"pods": resource.MustParse("5")}
	obj, _, err := store.Update(ctx, "compute", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if got := obj.(*corev1.ResourceQuota); got.Spec.Hard.Pods().Value() != 20 || len(got.Status.Used) != 0 {
		t.Errorf("update: %+v", got)
	}
	st := obj.(*corev1.ResourceQuota).DeepCopy()
	st.Spec.Hard["pods"] = resource.MustParse("1")
	st.Status = corev1.ResourceQuotaStatus{Hard: st.Spec.Hard, Used: corev1.ResourceList{"pods": resource.MustParse("2")}}
	obj, _, err = status.Update(ctx, "compute", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if got := obj.(*corev1.ResourceQuota); got.Spec.Hard.Pods().Value() != 20 || got.Status.Used.Pods().Value() != 2 {
		t.Errorf("status: %+v", got)
	}

	// Scopes are immutable.
	scoped := obj.(*corev1.ResourceQuota).DeepCopy()
	scoped.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating}
	scoped.Spec.Hard = corev1.ResourceList{"pods": resource.MustParse("1")}
	_, _, err = store.Update(ctx, "compute", rest.DefaultUpdatedObjectInfo(scoped), nil, nil, false, &metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !cmp.Equal(causes(err), []string{"spec.scopes"}) {
		t.Errorf("scope change: %v", err)
	}
}

func TestTable(t *testing.T) {
	now := registrytest.GoldenTime.Add(5 * time.Minute)
	q := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "compute", CreationTimestamp: registrytest.GoldenTime},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "requests.cpu": resource.MustParse("4"), "limits.memory": resource.MustParse("8Gi")}},
		Status:     corev1.ResourceQuotaStatus{Used: corev1.ResourceList{"pods": resource.MustParse("3")}},
	}
	got, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"compute", "5m", "pods: 3/10, requests.cpu: 0/4", "limits.memory: 0/8Gi"}
	if diff := cmp.Diff(want, got.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
