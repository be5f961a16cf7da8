package webhook

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/webhook"
)

// fixture is a TLS webhook server with one behaviour per path, and both
// plugins over a fake clientset's informers.
type fixture struct {
	t      testing.TB
	client *fake.Clientset
	mut    *Mutating
	val    *Validating
	server *httptest.Server
	ca     []byte

	mu    sync.Mutex
	calls map[string][]*admissionv1.AdmissionReview
	// release unblocks /slow at the end of the test.
	release chan struct{}
	// nMut, nVal count the webhooks created so far.
	nMut, nVal int
}

func newFixture(t testing.TB, objs ...runtime.Object) *fixture {
	t.Helper()
	return newFixtureWith(t, nil, objs...)
}

// newFixtureWith is newFixture with the plugins' options changed by opt.
func newFixtureWith(t testing.TB, opt func(*Options), objs ...runtime.Object) *fixture {
	t.Helper()
	f := &fixture{t: t, calls: map[string][]*admissionv1.AdmissionReview{}, release: make(chan struct{})}
	f.server = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() { close(f.release); f.server.Close() })
	f.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.server.Certificate().Raw})
	f.client = fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(f.client, 0)
	opts := Options{
		Clients:    webhook.NewClientManager(nil, 30*time.Second),
		Namespaces: factory.Core().V1().Namespaces().Lister(),
		Scheme:     clientscheme.Scheme,
	}
	if opt != nil {
		opt(&opts)
	}
	var err error
	if f.mut, err = NewMutating(factory.Admissionregistration().V1().MutatingWebhookConfigurations(), opts); err != nil {
		t.Fatal(err)
	}
	if f.val, err = NewValidating(factory.Admissionregistration().V1().ValidatingWebhookConfigurations(), opts); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return f
}

func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls[r.URL.Path] = append(f.calls[r.URL.Path], &review)
	f.mu.Unlock()
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	jsonPatch := admissionv1.PatchTypeJSONPatch
	switch r.URL.Path {
	case "/deny":
		resp.Allowed = false
		resp.Result = &metav1.Status{Message: "no way"}
	case "/deny-403":
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden}
	case "/warn":
		resp.Warnings = []string{"careful"}
	case "/label":
		resp.PatchType = &jsonPatch
		resp.Patch = []byte(`[{"op":"add","path":"/metadata/labels","value":{"patched":"yes"}}]`)
	case "/data":
		// Changes the object only once: a second call sees data set.
		var cm corev1.ConfigMap
		_ = json.Unmarshal(review.Request.Object.Raw, &cm)
		if cm.Data["by"] == "" {
			resp.PatchType = &jsonPatch
			resp.Patch = []byte(`[{"op":"add","path":"/data","value":{"by":"data"}}]`)
		}
	case "/no-patch-type":
		resp.Patch = []byte(`[]`)
	case "/slow":
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
		return
	case "/wrong-uid":
		resp.UID = "other"
	case "/error":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&out)
}

func (f *fixture) callsTo(path string) []*admissionv1.AdmissionReview {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[path]
}

// hookSpec is one webhook of a test configuration.
type hookSpec struct {
	name, path    string
	url           string // overrides the server's URL
	failure       admissionregistrationv1.FailurePolicyType
	sideEffects   admissionregistrationv1.SideEffectClass
	timeout       int32
	versions      []string
	reinvoke      bool
	nsSelector    *metav1.LabelSelector
	objSelector   *metav1.LabelSelector
	conditions    []admissionregistrationv1.MatchCondition
	rules         []admissionregistrationv1.RuleWithOperations
	matchPolicy   admissionregistrationv1.MatchPolicyType
	configuration string
}

func (f *fixture) clientConfig(s hookSpec) admissionregistrationv1.WebhookClientConfig {
	u := f.server.URL + s.path
	if s.url != "" {
		u = s.url
	}
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: f.ca}
}

var configMapRules = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
}}

func (s hookSpec) defaults() hookSpec {
	if s.failure == "" {
		s.failure = admissionregistrationv1.Fail
	}
	if s.sideEffects == "" {
		s.sideEffects = admissionregistrationv1.SideEffectClassNone
	}
	if s.timeout == 0 {
		s.timeout = 10
	}
	if s.versions == nil {
		s.versions = []string{"v1"}
	}
	if s.rules == nil {
		s.rules = configMapRules
	}
	if s.matchPolicy == "" {
		s.matchPolicy = admissionregistrationv1.Equivalent
	}
	if s.nsSelector == nil {
		s.nsSelector = &metav1.LabelSelector{}
	}
	if s.objSelector == nil {
		s.objSelector = &metav1.LabelSelector{}
	}
	return s
}

// addValidating creates a ValidatingWebhookConfiguration and waits until
// the plugin sees it.
func (f *fixture) addValidating(name string, specs ...hookSpec) {
	f.t.Helper()
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, s := range specs {
		s = s.defaults()
		c.Webhooks = append(c.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name: s.name, ClientConfig: f.clientConfig(s), Rules: s.rules, FailurePolicy: &s.failure,
			MatchPolicy: &s.matchPolicy, NamespaceSelector: s.nsSelector, ObjectSelector: s.objSelector,
			SideEffects: &s.sideEffects, TimeoutSeconds: &s.timeout, AdmissionReviewVersions: s.versions,
			MatchConditions: s.conditions,
		})
	}
	if _, err := f.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(context.Background(), c, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	f.nVal += len(specs)
	f.waitFor(f.val.source, f.nVal)
}

func (f *fixture) addMutating(name string, specs ...hookSpec) {
	f.t.Helper()
	c := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, s := range specs {
		s = s.defaults()
		policy := admissionregistrationv1.NeverReinvocationPolicy
		if s.reinvoke {
			policy = admissionregistrationv1.IfNeededReinvocationPolicy
		}
		c.Webhooks = append(c.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: s.name, ClientConfig: f.clientConfig(s), Rules: s.rules, FailurePolicy: &s.failure,
			MatchPolicy: &s.matchPolicy, NamespaceSelector: s.nsSelector, ObjectSelector: s.objSelector,
			SideEffects: &s.sideEffects, TimeoutSeconds: &s.timeout, AdmissionReviewVersions: s.versions,
			ReinvocationPolicy: &policy, MatchConditions: s.conditions,
		})
	}
	if _, err := f.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(context.Background(), c, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	f.nMut += len(specs)
	f.waitFor(f.mut.source, f.nMut)
}

// waitFor polls until the source holds at least n webhooks.
func (f *fixture) waitFor(s *source, n int) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if hooks, ok := s.webhooks(context.Background()); ok && len(hooks) >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.t.Fatalf("the plugin did not see %d webhooks", n)
}

func configMap(name string, lbls map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: lbls}}
}

func createAttrs(obj *corev1.ConfigMap) *admission.Attributes {
	return &admission.Attributes{
		Name: obj.Name, Namespace: obj.Namespace,
		Resource:  corev1.SchemeGroupVersion.WithResource("configmaps"),
		Kind:      corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		Operation: admission.Create, Object: obj,
		UserInfo: &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"devs"}},
		Options:  &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}},
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}

func timeAfter5ms() <-chan time.Time { return time.After(5 * time.Millisecond) }
