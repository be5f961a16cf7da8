package serviceaccount

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

const testIssuerURL = "https://kubernetes.default.svc.cluster.local"

var tokenNow = time.Unix(1_700_000_000, 0)

// fakeGetter serves objects by "namespace/name" ("/name" when cluster
// scoped).
type fakeGetter struct {
	resource schema.GroupResource
	objects  map[string]runtime.Object
}

func (f fakeGetter) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if obj, ok := f.objects[request.NamespaceValue(ctx)+"/"+name]; ok {
		return obj.DeepCopyObject(), nil
	}
	return nil, apierrors.NewNotFound(f.resource, name)
}

type tokenEnv struct {
	issuer   *serviceaccount.Issuer
	accounts *REST
	sa       *corev1.ServiceAccount
}

var (
	keyOnce sync.Once
	testKey *rsa.PrivateKey
)

func newTokenEnv(t *testing.T) *tokenEnv {
	t.Helper()
	keyOnce.Do(func() {
		var err error
		if testKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	iss, err := serviceaccount.NewIssuer(testIssuerURL, testKey)
	if err != nil {
		t.Fatal(err)
	}
	scheme := registrytest.NewScheme(t)
	accounts, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := accounts.Create(registrytest.NamespaceContext("ns"), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "ns"}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &tokenEnv{issuer: iss.WithClock(func() time.Time { return tokenNow.Add(time.Minute) }), accounts: accounts, sa: obj.(*corev1.ServiceAccount)}
}

func (e *tokenEnv) rest(t *testing.T, configure ...func(*Options)) *TokenREST {
	t.Helper()
	opts := Options{Issuer: e.issuer, Now: func() time.Time { return tokenNow }, Pods: testPods, Secrets: testSecrets, Nodes: testNodes}
	for _, c := range configure {
		c(&opts)
	}
	r, err := NewTokenREST(e.accounts, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	testPods = fakeGetter{resource: corev1.Resource("pods"), objects: map[string]runtime.Object{
		"ns/web-0":  &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "ns", UID: "pod-uid"}, Spec: corev1.PodSpec{ServiceAccountName: "default", NodeName: "node-1"}},
		"ns/other":  &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "ns", UID: "other-uid"}, Spec: corev1.PodSpec{ServiceAccountName: "builder"}},
		"ns/nonode": &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nonode", Namespace: "ns", UID: "nonode-uid"}, Spec: corev1.PodSpec{ServiceAccountName: "default", NodeName: "gone"}},
	}}
	testSecrets = fakeGetter{resource: corev1.Resource("secrets"), objects: map[string]runtime.Object{
		"ns/tok": &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tok", Namespace: "ns", UID: "secret-uid"}},
	}}
	testNodes = fakeGetter{resource: corev1.Resource("nodes"), objects: map[string]runtime.Object{
		"/node-1": &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "node-uid"}},
	}}
)

// issue posts req for service account name in namespace ns.
func issue(t *testing.T, r *TokenREST, name string, req *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
	t.Helper()
	obj, err := r.Create(registrytest.NamespaceContext("ns"), name, req, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*authenticationv1.TokenRequest), nil
}

func TestTokenDefaults(t *testing.T) {
	env := newTokenEnv(t)
	got, err := issue(t, env.rest(t), "default", &authenticationv1.TokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := env.issuer.Validate(got.Status.Token, []string{testIssuerURL})
	if err != nil {
		t.Fatalf("the issued token does not validate: %v", err)
	}
	want := &authenticationv1.TokenRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "ns", CreationTimestamp: metav1.NewTime(tokenNow)},
		Spec:       authenticationv1.TokenRequestSpec{Audiences: []string{testIssuerURL}, ExpirationSeconds: ptr.To[int64](3600)},
		Status:     authenticationv1.TokenRequestStatus{Token: got.Status.Token, ExpirationTimestamp: metav1.NewTime(tokenNow.Add(time.Hour))},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	wantClaims := serviceaccount.NewClaims(tokenNow, "ns", serviceaccount.Ref{Name: "default", UID: string(env.sa.UID)}, []string{testIssuerURL}, time.Hour)
	wantClaims.Issuer, wantClaims.ID = testIssuerURL, claims.ID
	if diff := cmp.Diff(wantClaims, claims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}

func TestTokenMissingServiceAccount(t *testing.T) {
	env := newTokenEnv(t)
	_, err := issue(t, env.rest(t), "missing", &authenticationv1.TokenRequest{})
	if !apierrors.IsNotFound(err) || err.Error() != `serviceaccounts "missing" not found` {
		t.Fatalf("err = %v, want serviceaccounts \"missing\" not found", err)
	}
}

func TestTokenInvalid(t *testing.T) {
	env := newTokenEnv(t)
	r := env.rest(t)
	webhook := &authenticationv1.BoundObjectReference{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "hook"}
	groups := func(v ...string) map[string]authenticationv1.AttestationValue {
		return map[string]authenticationv1.AttestationValue{authenticationv1.AttestationAdmissionReviewAPIGroups: v}
	}
	tests := []struct {
		name string
		req  authenticationv1.TokenRequest
		want []string // "type path"
	}{
		{name: "expiration under 10 minutes", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](599)}},
			want: []string{"FieldValueInvalid spec.expirationSeconds"}},
		{name: "expiration over 2^32 s", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](1<<32 + 1)}},
			want: []string{"FieldValueInvalid spec.expirationSeconds"}},
		{name: "another name", req: authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Name: "admin"}},
			want: []string{"FieldValueInvalid metadata.name"}},
		{name: "another namespace", req: authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system"}},
			want: []string{"FieldValueInvalid metadata.namespace"}},
		{name: "attestations without a webhook", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Attestations: groups("apps")}},
			want: []string{"FieldValueInvalid spec.attestations"}},
		{name: "webhook with two audiences and no attestation", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: webhook, Audiences: []string{"a", "b"}}},
			want: []string{"FieldValueInvalid spec.audiences", "FieldValueInvalid spec.attestations"}},
		{name: "webhook with an unknown attestation", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: webhook, Audiences: []string{"a"},
			Attestations: map[string]authenticationv1.AttestationValue{"color": {"red"}}}},
			want: []string{"FieldValueNotSupported spec.attestations[color]"}},
		{name: "webhook with an empty group", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: webhook, Audiences: []string{"a"}, Attestations: groups("")}},
			want: []string{"FieldValueInvalid spec.attestations[admissionReviewAPIGroups][0]"}},
		{name: "webhook with two groups", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: webhook, Audiences: []string{"a"}, Attestations: groups("apps", "batch")}},
			want: []string{"FieldValueInvalid spec.attestations[admissionReviewAPIGroups]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := issue(t, r, "default", &tt.req)
			var status apierrors.APIStatus
			if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
				t.Fatalf("err = %v, want 422 Invalid", err)
			}
			var got []string
			for _, c := range status.Status().Details.Causes {
				got = append(got, string(c.Type)+" "+c.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if status.Status().Details.Group != "authentication.k8s.io" || status.Status().Details.Kind != "TokenRequest" {
				t.Errorf("details = %+v, want authentication.k8s.io TokenRequest", status.Status().Details)
			}
		})
	}
	// the message is upstream's
	_, err := issue(t, r, "default", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](60)}})
	if want := "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
}

func TestTokenBoundObjects(t *testing.T) {
	env := newTokenEnv(t)
	ref := func(kind, name, uid string) *authenticationv1.BoundObjectReference {
		return &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: kind, Name: name, UID: types.UID(uid)}
	}
	tests := []struct {
		name      string
		ref       *authenticationv1.BoundObjectReference
		noGetters bool
		want      serviceaccount.KubernetesClaims // Namespace and ServiceAccount filled by the test
		wantErr   func(error) bool
	}{
		{name: "pod, with its node", ref: ref("Pod", "web-0", "pod-uid"),
			want: serviceaccount.KubernetesClaims{Pod: &serviceaccount.Ref{Name: "web-0", UID: "pod-uid"}, Node: &serviceaccount.Ref{Name: "node-1", UID: "node-uid"}}},
		{name: "pod whose node is unknown", ref: ref("Pod", "nonode", ""),
			want: serviceaccount.KubernetesClaims{Pod: &serviceaccount.Ref{Name: "nonode", UID: "nonode-uid"}}},
		{name: "secret", ref: ref("Secret", "tok", ""),
			want: serviceaccount.KubernetesClaims{Secret: &serviceaccount.Ref{Name: "tok", UID: "secret-uid"}}},
		{name: "node", ref: ref("Node", "node-1", "node-uid"),
			want: serviceaccount.KubernetesClaims{Node: &serviceaccount.Ref{Name: "node-1", UID: "node-uid"}}},
		{name: "pod of another service account", ref: ref("Pod", "other", ""), wantErr: apierrors.IsBadRequest},
		{name: "missing pod", ref: ref("Pod", "nope", ""), wantErr: apierrors.IsNotFound},
		{name: "uid of a recreated pod", ref: ref("Pod", "web-0", "old-uid"), wantErr: apierrors.IsConflict},
		{name: "unsupported kind", ref: ref("ConfigMap", "cm", ""), wantErr: apierrors.IsBadRequest},
		{name: "kind of another group", ref: &authenticationv1.BoundObjectReference{APIVersion: "apps/v1", Kind: "Pod", Name: "web-0"}, wantErr: apierrors.IsBadRequest},
		{name: "webhook configuration", ref: &authenticationv1.BoundObjectReference{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration", Name: "hook"}, wantErr: apierrors.IsBadRequest},
		{name: "no pod getter", ref: ref("Pod", "web-0", ""), noGetters: true, wantErr: apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.rest(t, func(o *Options) {
				if tt.noGetters {
					o.Pods, o.Secrets, o.Nodes = nil, nil, nil
				}
			})
			req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: tt.ref}}
			if tt.ref.Kind == "MutatingWebhookConfiguration" {
				req.Spec.Audiences = []string{"https://hook.example"}
				req.Spec.Attestations = map[string]authenticationv1.AttestationValue{authenticationv1.AttestationAdmissionReviewAPIGroups: {"*"}}
			}
			got, err := issue(t, r, "default", req)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			claims, err := env.issuer.Validate(got.Status.Token, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Namespace, want.ServiceAccount = "ns", serviceaccount.Ref{Name: "default", UID: string(env.sa.UID)}
			if diff := cmp.Diff(&want, claims.Kubernetes); diff != "" {
				t.Errorf("kubernetes.io claim (-want +got):\n%s", diff)
			}
		})
	}
}

type recorder []string

func (r *recorder) AddWarning(_, text string) { *r = append(*r, text) }

func TestTokenExpiration(t *testing.T) {
	env := newTokenEnv(t)
	pod := &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: "web-0"}
	tests := []struct {
		name          string
		opts          func(*Options)
		spec          authenticationv1.TokenRequestSpec
		wantSeconds   int64         // spec.expirationSeconds and status.expirationTimestamp
		wantExp       time.Duration // the token's exp
		wantWarnAfter time.Duration // 0: none
		wantWarnings  []string
	}{
		{name: "capped by the maximum", opts: func(o *Options) { o.MaxExpiration = 2 * time.Hour },
			spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3 * 3600)}, wantSeconds: 7200, wantExp: 2 * time.Hour,
			wantWarnings: []string{"requested expiration of 10800 seconds shortened to 7200 seconds"}},
		{name: "under the maximum", opts: func(o *Options) { o.MaxExpiration = 2 * time.Hour },
			spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](1800)}, wantSeconds: 1800, wantExp: 30 * time.Minute},
		{name: "kubelet's pod token is extended", opts: func(o *Options) { o.ExtendExpiration = true },
			spec:        authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3607), BoundObjectRef: pod},
			wantSeconds: 3607, wantExp: 365 * 24 * time.Hour, wantWarnAfter: 3607 * time.Second},
		{name: "not extended for another audience", opts: func(o *Options) { o.ExtendExpiration = true },
			spec:        authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3607), BoundObjectRef: pod, Audiences: []string{"vault"}},
			wantSeconds: 3607, wantExp: 3607 * time.Second},
		{name: "not extended when unbound", opts: func(o *Options) { o.ExtendExpiration = true },
			spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3607)}, wantSeconds: 3607, wantExp: 3607 * time.Second},
		{name: "not extended when disabled",
			spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3607), BoundObjectRef: pod}, wantSeconds: 3607, wantExp: 3607 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.rest(t, func(o *Options) {
				if tt.opts != nil {
					tt.opts(o)
				}
			})
			var warnings recorder
			ctx := warning.WithRecorder(registrytest.NamespaceContext("ns"), &warnings)
			obj, err := r.Create(ctx, "default", &authenticationv1.TokenRequest{Spec: tt.spec}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := obj.(*authenticationv1.TokenRequest)
			if *got.Spec.ExpirationSeconds != tt.wantSeconds || !got.Status.ExpirationTimestamp.Equal(ptr.To(metav1.NewTime(tokenNow.Add(time.Duration(tt.wantSeconds)*time.Second)))) {
				t.Errorf("expirationSeconds = %d, expirationTimestamp = %v, want %d s", *got.Spec.ExpirationSeconds, got.Status.ExpirationTimestamp, tt.wantSeconds)
			}
			claims, err := env.issuer.Validate(got.Status.Token, nil)
			if err != nil {
				t.Fatal(err)
			}
			if exp := claims.Expiry.Time().Sub(tokenNow); exp != tt.wantExp {
				t.Errorf("token lifetime = %v, want %v", exp, tt.wantExp)
			}
			var warnAfter time.Duration
			if claims.Kubernetes.WarnAfter != nil {
				warnAfter = claims.Kubernetes.WarnAfter.Time().Sub(tokenNow)
			}
			if warnAfter != tt.wantWarnAfter {
				t.Errorf("warnafter = %v, want %v", warnAfter, tt.wantWarnAfter)
			}
			if diff := cmp.Diff(tt.wantWarnings, []string(warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTokenAdmissionAndNamespace(t *testing.T) {
	env := newTokenEnv(t)
	r := env.rest(t)
	denied := apierrors.NewForbidden(corev1.Resource("serviceaccounts/token"), "default", fmt.Errorf("denied"))
	var seen *authenticationv1.TokenRequest
	_, err := r.Create(registrytest.NamespaceContext("ns"), "default", &authenticationv1.TokenRequest{}, func(_ context.Context, obj runtime.Object) error {
		seen = obj.(*authenticationv1.TokenRequest)
		return denied
	}, nil)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want the admission's Forbidden", err)
	}
	// admission sees the completed request
	if seen == nil || seen.Name != "default" || *seen.Spec.ExpirationSeconds != 3600 || len(seen.Spec.Audiences) != 1 {
		t.Errorf("admission saw %+v", seen)
	}
	if _, err := r.Create(context.Background(), "default", &authenticationv1.TokenRequest{}, nil, nil); !apierrors.IsBadRequest(err) {
		t.Errorf("no namespace: err = %v, want BadRequest", err)
	}
}

func TestNewStorage(t *testing.T) {
	env := newTokenEnv(t)
	scheme := registrytest.NewScheme(t)
	for _, tt := range []struct {
		opts Options
		want []string
	}{
		{opts: Options{}, want: []string{"serviceaccounts"}},
		{opts: Options{Issuer: env.issuer}, want: []string{"serviceaccounts", "serviceaccounts/token"}},
	} {
		storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme), tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for k := range storage {
			got = append(got, k)
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("storage keys (-want +got):\n%s", diff)
		}
	}
}

// TestTokenOverHTTP posts a TokenRequest through the real handlers, as
// kubectl create token does.
func TestTokenOverHTTP(t *testing.T) {
	env := newTokenEnv(t)
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme), Options{Issuer: env.issuer, Now: func() time.Time { return tokenNow }})
	if err != nil {
		t.Fatal(err)
	}
	g := &endpoints.APIGroupVersion{GroupVersion: corev1.SchemeGroupVersion, Storage: storage, Scheme: scheme, Codecs: serializer.NewCodecFactory(scheme)}
	h, resources, err := g.Install()
	if err != nil {
		t.Fatal(err)
	}
	var tokenResource *metav1.APIResource
	for i := range resources {
		if resources[i].Name == "serviceaccounts/token" {
			tokenResource = &resources[i]
		}
	}
	want := &metav1.APIResource{Name: "serviceaccounts/token", Namespaced: true, Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest", Verbs: []string{"create"}}
	if diff := cmp.Diff(want, tokenResource); diff != "" {
		t.Errorf("discovery (-want +got):\n%s", diff)
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, err := request.NewRequestInfoFactory().NewRequestInfo(req)
		if err != nil {
			t.Fatal(err)
		}
		ctx := request.WithNamespace(request.WithRequestInfo(req.Context(), info), info.Namespace)
		h.ServeHTTP(w, req.WithContext(request.WithUser(ctx, &user.DefaultInfo{Name: "tester"})))
	})
	post := func(sa, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/ns/serviceaccounts/"+sa+"/token", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		return rec
	}
	for _, name := range []string{"default", "builder"} {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
		if _, err := storage["serviceaccounts"].(*REST).Create(registrytest.NamespaceContext("ns"), sa, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	rec := post("default", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["vault"]}}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	var got authenticationv1.TokenRequest
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Kind != "TokenRequest" || got.APIVersion != "authentication.k8s.io/v1" || got.Name != "default" {
		t.Errorf("response %s %s %s", got.APIVersion, got.Kind, got.Name)
	}
	if _, err := env.issuer.Validate(got.Status.Token, []string{"vault"}); err != nil {
		t.Errorf("token: %v", err)
	}
	for _, tt := range []struct {
		sa, body string
		code     int
		message  string
	}{
		{sa: "missing", body: `{}`, code: http.StatusNotFound, message: `serviceaccounts \"missing\" not found`},
		{sa: "default", body: `{"spec":{"expirationSeconds":60}}`, code: http.StatusUnprocessableEntity, message: `spec.expirationSeconds`},
		{sa: "default", body: `{"metadata":{"name":"builder"}}`, code: http.StatusUnprocessableEntity, message: `metadata.name`},
	} {
		rec := post(tt.sa, tt.body)
		if rec.Code != tt.code || !strings.Contains(rec.Body.String(), tt.message) {
			t.Errorf("POST %s %s: %d %s, want %d with %s", tt.sa, tt.body, rec.Code, rec.Body, tt.code, tt.message)
		}
	}
}
