package webhook

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestRuleMatching(t *testing.T) {
	cluster, namespaced := admissionregistrationv1.ClusterScope, admissionregistrationv1.NamespacedScope
	rule := func(ops []admissionregistrationv1.OperationType, res []string, scope *admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{"", "apps"}, APIVersions: []string{"*"}, Resources: res, Scope: scope}}
	}
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	pods := corev1.SchemeGroupVersion.WithResource("pods")
	nss := corev1.SchemeGroupVersion.WithResource("namespaces")
	for _, tc := range []struct {
		name string
		rule admissionregistrationv1.RuleWithOperations
		a    admission.Attributes
		want bool
	}{
		{"exact", rule(create, []string{"pods"}, nil), admission.Attributes{Operation: admission.Create, Resource: pods, Namespace: "a"}, true},
		{"other operation", rule(create, []string{"pods"}, nil), admission.Attributes{Operation: admission.Update, Resource: pods, Namespace: "a"}, false},
		{"star operation matches connect", rule(all, []string{"pods/exec"}, nil), admission.Attributes{Operation: admission.Connect, Resource: pods, Subresource: "exec", Namespace: "a"}, true},
		{"resource does not match subresource", rule(all, []string{"pods"}, nil), admission.Attributes{Operation: admission.Update, Resource: pods, Subresource: "status", Namespace: "a"}, false},
		{"star does not match subresource", rule(all, []string{"*"}, nil), admission.Attributes{Operation: admission.Update, Resource: pods, Subresource: "status", Namespace: "a"}, false},
		{"pods/* matches subresource", rule(all, []string{"pods/*"}, nil), admission.Attributes{Operation: admission.Update, Resource: pods, Subresource: "status", Namespace: "a"}, true},
		{"*/status", rule(all, []string{"*/status"}, nil), admission.Attributes{Operation: admission.Update, Resource: pods, Subresource: "status", Namespace: "a"}, true},
		{"*/* matches everything", rule(all, []string{"*/*"}, nil), admission.Attributes{Operation: admission.Update, Resource: pods, Subresource: "binding", Namespace: "a"}, true},
		{"other group", rule(all, []string{"*"}, nil), admission.Attributes{Operation: admission.Create, Resource: schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}, Namespace: "a"}, false},
		{"namespaced scope", rule(all, []string{"*"}, &namespaced), admission.Attributes{Operation: admission.Create, Resource: pods, Namespace: "a"}, true},
		{"namespaced scope, namespace object", rule(all, []string{"*"}, &namespaced), admission.Attributes{Operation: admission.Create, Resource: nss, Namespace: "a"}, false},
		{"cluster scope, namespace object", rule(all, []string{"*"}, &cluster), admission.Attributes{Operation: admission.Create, Resource: nss, Namespace: "a"}, true},
		{"cluster scope, namespaced object", rule(all, []string{"*"}, &cluster), admission.Attributes{Operation: admission.Create, Resource: pods, Namespace: "a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ruleMatches(&tc.rule, &tc.a, tc.a.Resource); got != tc.want {
				t.Errorf("ruleMatches = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidatingOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     hookSpec
		wantCode int32
		want     string
	}{
		{"allowed", hookSpec{path: "/allow"}, 0, ""},
		{"denied with a message", hookSpec{path: "/deny"}, 400, `admission webhook "v.example.com" denied the request: no way`},
		{"denied with a code and reason", hookSpec{path: "/deny-403"}, 403, `admission webhook "v.example.com" denied the request: Forbidden`},
		{"unreachable, Fail", hookSpec{url: "https://127.0.0.1:1/x"}, 500, `Internal error occurred: failed calling webhook "v.example.com": failed to call webhook: Post "https://127.0.0.1:1/x?timeout=10s"`},
		{"unreachable, Ignore", hookSpec{url: "https://127.0.0.1:1/x", failure: admissionregistrationv1.Ignore}, 0, ""},
		{"error status, Fail", hookSpec{path: "/error"}, 500, `failed calling webhook "v.example.com": failed to call webhook: the server has asked for the client to provide credentials`},
		{"wrong uid", hookSpec{path: "/wrong-uid"}, 500, `received invalid webhook response: expected response.uid=`},
		{"timeout, Fail", hookSpec{path: "/slow", timeout: 1}, 500, "context deadline exceeded"},
		{"timeout, Ignore", hookSpec{path: "/slow", timeout: 1, failure: admissionregistrationv1.Ignore}, 0, ""},
		{"v1beta1 review", hookSpec{path: "/deny", versions: []string{"v1beta1"}}, 400, "no way"},
		{"no known review version", hookSpec{path: "/allow", versions: []string{"v2"}}, 500, "webhook does not accept known AdmissionReview versions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.spec.name = "v.example.com"
			f.addValidating("cfg", tc.spec)
			err := f.val.Validate(context.Background(), createAttrs(configMap("cm", nil)))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if tc.name == "error status, Fail" {
				// A 500 answer without a Status: its text is client-go's.
				tc.want = `failed calling webhook "v.example.com": failed to call webhook:`
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want containing %q", err, tc.want)
			}
			if code := apierrors.ReasonForError(err); tc.wantCode != 0 && statusCode(err) != tc.wantCode {
				t.Errorf("code = %d (%s), want %d", statusCode(err), code, tc.wantCode)
			}
		})
	}
}

func statusCode(err error) int32 {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status().Code
	}
	return 0
}

func TestRequestContents(t *testing.T) {
	f := newFixture(t)
	f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/allow"})
	old := configMap("cm", map[string]string{"v": "1"})
	obj := configMap("cm", map[string]string{"v": "2"})
	a := createAttrs(obj)
	a.Operation, a.OldObject = admission.Update, old
	a.Options = &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}}
	if err := f.val.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	calls := f.callsTo("/allow")
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	r := calls[0].Request
	if r.Operation != "UPDATE" || r.UserInfo.Username != "alice" || r.UserInfo.UID != "u-1" || r.Kind.Kind != "ConfigMap" || r.RequestKind == nil || r.RequestResource.Resource != "configmaps" {
		t.Errorf("request = %+v", r)
	}
	for name, raw := range map[string]string{"object": string(r.Object.Raw), "oldObject": string(r.OldObject.Raw), "options": string(r.Options.Raw)} {
		want := map[string]string{"object": `"v":"2"`, "oldObject": `"v":"1"`, "options": `"kind":"UpdateOptions"`}[name]
		if !strings.Contains(raw, want) || (name != "options" && (!strings.Contains(raw, `"apiVersion":"v1"`) || !strings.Contains(raw, `"kind":"ConfigMap"`))) {
			t.Errorf("%s = %s, want it to contain %s", name, raw, want)
		}
	}
}

func TestSelectorsAndConditions(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"env": "prod"}}}
	sel := func(k, v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
	}
	cond := func(expr string) []admissionregistrationv1.MatchCondition {
		return []admissionregistrationv1.MatchCondition{{Name: "c", Expression: expr}}
	}
	for _, tc := range []struct {
		name      string
		spec      hookSpec
		oldLabels map[string]string
		labels    map[string]string
		called    bool
		wantErr   string
	}{
		{"namespace matches", hookSpec{nsSelector: sel("env", "prod")}, nil, nil, true, ""},
		{"namespace does not match", hookSpec{nsSelector: sel("env", "dev")}, nil, nil, false, ""},
		{"object matches", hookSpec{objSelector: sel("app", "x")}, nil, map[string]string{"app": "x"}, true, ""},
		{"old object matches", hookSpec{objSelector: sel("app", "x")}, map[string]string{"app": "x"}, nil, true, ""},
		{"object does not match", hookSpec{objSelector: sel("app", "x")}, nil, map[string]string{"app": "y"}, false, ""},
		{"condition true", hookSpec{conditions: cond(`object.metadata.name == "cm" && request.userInfo.username == "alice"`)}, nil, nil, true, ""},
		{"condition false", hookSpec{conditions: cond(`object.metadata.name == "other"`)}, nil, nil, false, ""},
		{"condition error, Fail", hookSpec{conditions: cond(`object.metadata.nope == "x"`)}, nil, nil, false, "failed to evaluate match conditions"},
		{"condition error, Ignore", hookSpec{conditions: cond(`object.metadata.nope == "x"`), failure: admissionregistrationv1.Ignore}, nil, nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, ns)
			tc.spec.name, tc.spec.path = "v.example.com", "/allow"
			f.addValidating("cfg", tc.spec)
			a := createAttrs(configMap("cm", tc.labels))
			if tc.oldLabels != nil {
				a.Operation, a.OldObject = admission.Update, configMap("cm", tc.oldLabels)
			}
			err := f.val.Validate(context.Background(), a)
			if got := errText(err); (tc.wantErr == "" && err != nil) || !strings.Contains(got, tc.wantErr) {
				t.Fatalf("Validate = %v, want %q", err, tc.wantErr)
			}
			if called := len(f.callsTo("/allow")) > 0; called != tc.called {
				t.Errorf("called = %v, want %v", called, tc.called)
			}
		})
	}
}

func TestDryRun(t *testing.T) {
	for _, tc := range []struct {
		sideEffects admissionregistrationv1.SideEffectClass
		want        string
	}{
		{admissionregistrationv1.SideEffectClassNone, ""},
		{admissionregistrationv1.SideEffectClassNoneOnDryRun, ""},
		{admissionregistrationv1.SideEffectClassSome, `admission webhook "v.example.com" does not support dry run`},
		{admissionregistrationv1.SideEffectClassUnknown, `admission webhook "v.example.com" does not support dry run`},
	} {
		t.Run(string(tc.sideEffects), func(t *testing.T) {
			f := newFixture(t)
			f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/allow", sideEffects: tc.sideEffects})
			a := createAttrs(configMap("cm", nil))
			a.DryRun = true
			err := f.val.Validate(context.Background(), a)
			if tc.want == "" {
				calls := f.callsTo("/allow")
				if err != nil || len(calls) != 1 || !*calls[0].Request.DryRun {
					t.Fatalf("Validate = %v, %d calls; want a dry-run call", err, len(calls))
				}
				return
			}
			if err == nil || err.Error() != tc.want || !apierrors.IsBadRequest(err) {
				t.Fatalf("Validate = %v, want BadRequest %q", err, tc.want)
			}
		})
	}
}

func TestMutatingPatchWarningsAndReinvocation(t *testing.T) {
	f := newFixture(t)
	// m1 asks to be reinvoked; m2 (a later configuration) changes the
	// object after m1 ran, so m1 runs again, and only once.
	f.addMutating("a", hookSpec{name: "m1.example.com", path: "/label", reinvoke: true})
	f.addMutating("b", hookSpec{name: "m2.example.com", path: "/data"})
	obj := configMap("cm", nil)
	if err := f.mut.Admit(context.Background(), createAttrs(obj)); err != nil {
		t.Fatal(err)
	}
	if obj.Labels["patched"] != "yes" || obj.Data["by"] != "data" {
		t.Errorf("object after admission = %+v", obj)
	}
	if n := len(f.callsTo("/label")); n != 2 {
		t.Errorf("m1 called %d times, want 2 (reinvoked)", n)
	}
	if n := len(f.callsTo("/data")); n != 1 {
		t.Errorf("m2 called %d times, want 1", n)
	}
	// The reinvocation sees m2's change.
	if calls := f.callsTo("/label"); len(calls) == 2 && !strings.Contains(string(calls[1].Request.Object.Raw), `"by":"data"`) {
		t.Errorf("reinvocation saw %s", calls[1].Request.Object.Raw)
	}
}

func TestMutatingNoReinvocationWithoutChange(t *testing.T) {
	f := newFixture(t)
	f.addMutating("a", hookSpec{name: "m1.example.com", path: "/allow", reinvoke: true})
	f.addMutating("b", hookSpec{name: "m2.example.com", path: "/allow"})
	if err := f.mut.Admit(context.Background(), createAttrs(configMap("cm", nil))); err != nil {
		t.Fatal(err)
	}
	if n := len(f.callsTo("/allow")); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
}

func TestMutatingBadResponses(t *testing.T) {
	for _, tc := range []struct {
		spec hookSpec
		want string
	}{
		{hookSpec{path: "/no-patch-type"}, "webhook returned response.patch but not response.patchType"},
		{hookSpec{path: "/deny"}, `admission webhook "m.example.com" denied the request: no way`},
		{hookSpec{path: "/no-patch-type", failure: admissionregistrationv1.Ignore}, ""},
	} {
		t.Run(tc.spec.path+string(tc.spec.failure), func(t *testing.T) {
			f := newFixture(t)
			tc.spec.name = "m.example.com"
			f.addMutating("cfg", tc.spec)
			err := f.mut.Admit(context.Background(), createAttrs(configMap("cm", nil)))
			if got := errText(err); (tc.want == "" && err != nil) || !strings.Contains(got, tc.want) {
				t.Fatalf("Admit = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestConfigurationChangesAreLive(t *testing.T) {
	f := newFixture(t)
	a := createAttrs(configMap("cm", nil))
	if err := f.val.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/deny"})
	if err := f.val.Validate(context.Background(), a); err == nil {
		t.Fatal("a new configuration was not picked up")
	}
	if err := f.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), "cfg", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitForNone(f.val.source)
	if err := f.val.Validate(context.Background(), a); err != nil {
		t.Fatalf("a deleted configuration still applies: %v", err)
	}
}

func (f *fixture) waitForNone(s *source) {
	f.t.Helper()
	for range 2000 {
		if hooks, ok := s.webhooks(context.Background()); ok && len(hooks) == 0 {
			return
		}
		<-timeAfter5ms()
	}
	f.t.Fatal("the plugin still sees webhooks")
}

// widgetMapper serves widgets in v1 and v2 from one storage.
type widgetMapper struct{}

func (widgetMapper) EquivalentResources(gvr schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
	return []schema.GroupVersionResource{gvr.GroupResource().WithVersion("v1"), gvr.GroupResource().WithVersion("v2")}
}

func (widgetMapper) KindFor(gvr schema.GroupVersionResource, _ string) (schema.GroupVersionKind, bool) {
	return gvr.GroupVersion().WithKind("Widget"), true
}

// TestMatchPolicy: a webhook for v2 only sees a v1 request converted to
// v2 under Equivalent, and not at all under Exact.
func TestMatchPolicy(t *testing.T) {
	v2Rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v2"}, Resources: []string{"widgets"}},
	}}
	for _, policy := range []admissionregistrationv1.MatchPolicyType{admissionregistrationv1.Equivalent, admissionregistrationv1.Exact} {
		t.Run(string(policy), func(t *testing.T) {
			f := newFixture(t)
			f.val.opts.Mapper = widgetMapper{}
			f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/allow", rules: v2Rules, matchPolicy: policy})
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns"}}}
			a := &admission.Attributes{Name: "w", Namespace: "ns", Operation: admission.Create, Object: obj,
				Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
				Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}}
			if err := f.val.Validate(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			calls := f.callsTo("/allow")
			if policy == admissionregistrationv1.Exact {
				if len(calls) != 0 {
					t.Fatalf("Exact: %d calls, want none", len(calls))
				}
				return
			}
			if len(calls) != 1 {
				t.Fatalf("Equivalent: %d calls, want 1", len(calls))
			}
			r := calls[0].Request
			if r.Kind.Version != "v2" || r.Resource.Version != "v2" || r.RequestKind.Version != "v1" || r.RequestResource.Version != "v1" ||
				!strings.Contains(string(r.Object.Raw), `"apiVersion":"example.com/v2"`) {
				t.Errorf("request kind %v resource %v requestKind %v object %s", r.Kind, r.Resource, r.RequestKind, r.Object.Raw)
			}
		})
	}
}
