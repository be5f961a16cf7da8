package mutatingwebhookconfiguration

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func errorPaths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	// Defaults include reinvocationPolicy Never.
	created := registrytest.Golden(t, scheme, storage["mutatingwebhookconfigurations"].(rest.Creater), "testdata", "mutatingwebhookconfiguration")
	if p := created.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks[0].ReinvocationPolicy; p == nil || *p != admissionregistrationv1.NeverReinvocationPolicy {
		t.Errorf("reinvocationPolicy = %v", p)
	}
}

func TestValidate(t *testing.T) {
	hook := admissionregistrationv1.MutatingWebhook{
		Name:                    "a.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "n", Name: "s"}},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
	tests := []struct {
		name   string
		mutate func(*admissionregistrationv1.MutatingWebhook)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.MutatingWebhook) {}, nil},
		{"bad reinvocation", func(h *admissionregistrationv1.MutatingWebhook) {
			h.ReinvocationPolicy = ptr.To(admissionregistrationv1.ReinvocationPolicyType("Always"))
		}, []string{"FieldValueNotSupported webhooks[0].reinvocationPolicy"}},
		{"no client config", func(h *admissionregistrationv1.MutatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{}
		},
			[]string{"FieldValueRequired webhooks[0].clientConfig"}},
		{"bad policies", func(h *admissionregistrationv1.MutatingWebhook) {
			h.FailurePolicy = ptr.To(admissionregistrationv1.FailurePolicyType("Maybe"))
			h.MatchPolicy = ptr.To(admissionregistrationv1.MatchPolicyType("Roughly"))
		}, []string{"FieldValueNotSupported webhooks[0].failurePolicy", "FieldValueNotSupported webhooks[0].matchPolicy"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		h := hook
		tt.mutate(&h)
		c := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Webhooks: []admissionregistrationv1.MutatingWebhook{h}}
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), c))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: metav1.NewTime(now.Add(-time.Minute))},
		Webhooks: make([]admissionregistrationv1.MutatingWebhook, 2)}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"c", int64(2), "60s"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
