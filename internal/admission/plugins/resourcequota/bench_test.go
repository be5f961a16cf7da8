package resourcequota

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/quota"
)

// BenchmarkValidateCreate is the plugin's cost on a ConfigMap create in a
// namespace with two quotas (one limiting configmaps, one pods), the
// status write being an in-memory store.
func BenchmarkValidateCreate(b *testing.B) {
	access := &fakeAccess{quotas: map[string]*corev1.ResourceQuota{
		"objects": rq("objects", list("configmaps", "1000000000", "count/secrets", "10"), list("configmaps", "0", "count/secrets", "0")),
		"compute": rq("compute", list("pods", "10", "requests.cpu", "4"), list("pods", "0", "requests.cpu", "0")),
	}}
	p := New(quota.NewRegistry(clocktesting.NewFakePassiveClock(metav1.Now().Time)), access, nil)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i), Namespace: "ns"}}
		if err := p.Validate(ctx, attrs(admission.Create, "configmaps", cm, nil)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateCreateNoQuota is the cost when the namespace has none.
func BenchmarkValidateCreateNoQuota(b *testing.B) {
	p := New(quota.NewRegistry(clocktesting.NewFakePassiveClock(metav1.Now().Time)), &fakeAccess{quotas: map[string]*corev1.ResourceQuota{}}, nil)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}}
	for b.Loop() {
		if err := p.Validate(ctx, attrs(admission.Create, "configmaps", cm, nil)); err != nil {
			b.Fatal(err)
		}
	}
}
