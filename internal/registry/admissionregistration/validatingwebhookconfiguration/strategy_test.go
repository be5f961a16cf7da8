package validatingwebhookconfiguration

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

func newStore(t *testing.T) rest.StandardStorage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return storage["validatingwebhookconfigurations"].(rest.StandardStorage)
}

func TestGolden(t *testing.T) {
	store := newStore(t)
	// Defaults: failurePolicy Fail, matchPolicy Equivalent, empty selectors,
	// timeoutSeconds 10, service port 443, rule scope "*".
	registrytest.Golden(t, registrytest.NewScheme(t), store, "testdata", "validatingwebhookconfiguration")
	if got := store.(rest.CategoriesProvider).Categories(); !cmp.Equal(got, []string{"api-extensions"}) {
		t.Errorf("categories = %v", got)
	}
}

func hook() admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name:                    "a.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://example.com/x")},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*admissionregistrationv1.ValidatingWebhookConfiguration)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.ValidatingWebhookConfiguration) {}, nil},
		{"name not qualified", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) { c.Webhooks[0].Name = "a" },
			[]string{"FieldValueInvalid webhooks[0].name"}},
		{"duplicate names", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks = append(c.Webhooks, hook())
		},
			[]string{"FieldValueDuplicate webhooks[1].name"}},
		{"no review versions", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].AdmissionReviewVersions = nil
		},
			[]string{"FieldValueRequired webhooks[0].admissionReviewVersions"}},
		{"unknown review versions", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].AdmissionReviewVersions = []string{"v2"}
		}, []string{"FieldValueInvalid webhooks[0].admissionReviewVersions"}},
		{"no side effects", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) { c.Webhooks[0].SideEffects = nil },
			[]string{"FieldValueRequired webhooks[0].sideEffects"}},
		{"side effects Some", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].SideEffects = ptr.To(admissionregistrationv1.SideEffectClassSome)
		}, []string{"FieldValueNotSupported webhooks[0].sideEffects"}},
		{"url and service", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "n", Name: "s"}
		}, []string{"FieldValueRequired webhooks[0].clientConfig"}},
		{"http url", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].ClientConfig.URL = ptr.To("http://example.com?x=1")
		}, []string{"FieldValueInvalid webhooks[0].clientConfig.url", "FieldValueInvalid webhooks[0].clientConfig.url"}},
		{"bad service", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Port: ptr.To[int32](0), Path: ptr.To("x//")}}
		}, []string{
			"FieldValueRequired webhooks[0].clientConfig.service.name",
			"FieldValueRequired webhooks[0].clientConfig.service.namespace",
			"FieldValueInvalid webhooks[0].clientConfig.service.port",
			"FieldValueInvalid webhooks[0].clientConfig.service.path", // no leading slash
			"FieldValueInvalid webhooks[0].clientConfig.service.path", // segment[0] empty
			"FieldValueInvalid webhooks[0].clientConfig.service.path", // segment[1] empty
		}},
		{"timeout", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].TimeoutSeconds = ptr.To[int32](31)
		},
			[]string{"FieldValueInvalid webhooks[0].timeoutSeconds"}},
		{"bad rule", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"PATCH"},
				Rule: admissionregistrationv1.Rule{Resources: []string{"*/*", "pods"}, Scope: ptr.To(admissionregistrationv1.ScopeType("Galaxy"))}}}
		}, []string{
			"FieldValueNotSupported webhooks[0].rules[0].operations[0]",
			"FieldValueRequired webhooks[0].rules[0].apiGroups",
			"FieldValueRequired webhooks[0].rules[0].apiVersions",
			"FieldValueInvalid webhooks[0].rules[0].resources",
			"FieldValueNotSupported webhooks[0].rules[0].scope",
		}},
		{"match condition", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "a b"}}
		}, []string{"FieldValueRequired webhooks[0].matchConditions[0].expression", "FieldValueInvalid webhooks[0].matchConditions[0].name"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{hook()}}
		tt.mutate(c)
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), c))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestUpdate(t *testing.T) {
	s := NewStrategy(registrytest.NewScheme(t))
	// A stored configuration with side effects "Some" stays writable.
	old := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{hook()}}
	old.Webhooks[0].SideEffects = ptr.To(admissionregistrationv1.SideEffectClassSome)
	updated := old.DeepCopy()
	updated.Labels = map[string]string{"a": "b"}
	if errs := s.ValidateUpdate(context.Background(), updated, old); len(errs) != 0 {
		t.Errorf("ratcheted update: %v", errs)
	}

	store := newStore(t)
	ctx := context.Background()
	obj, err := store.Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{hook()}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	if c.Generation != 1 {
		t.Errorf("generation = %d", c.Generation)
	}
	relabeled := c.DeepCopy()
	relabeled.Labels = map[string]string{"a": "b"}
	obj, _, err = store.Update(ctx, "c", rest.DefaultUpdatedObjectInfo(relabeled), nil, nil, false, nil)
	if err != nil || obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Generation != 1 {
		t.Fatalf("relabel: %v %v", obj, err)
	}
	rehooked := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).DeepCopy()
	rehooked.Webhooks[0].TimeoutSeconds = ptr.To[int32](5)
	obj, _, err = store.Update(ctx, "c", rest.DefaultUpdatedObjectInfo(rehooked), nil, nil, false, nil)
	if err != nil || obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Generation != 2 {
		t.Fatalf("webhook change: %v %v", obj, err)
	}
	bad := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).DeepCopy()
	bad.Webhooks[0].SideEffects = ptr.To(admissionregistrationv1.SideEffectClassSome)
	if _, _, err := store.Update(ctx, "c", rest.DefaultUpdatedObjectInfo(bad), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("new side effects on update: %v, want Invalid", err)
	}
}
