package endpoints_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// newScheme is a scheme as the scheme owner builds it: core/v1 and the
// meta.k8s.io types and conversions.
func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, metainternalversion.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return scheme
}

// testEnv is core/v1 with configmaps (full verbs) and readonlyconfigmaps
// (get only) behind a test filter chain.
type testEnv struct {
	scheme    *runtime.Scheme
	codecs    serializer.CodecFactory
	store     *fakeConfigMaps
	admission *fakeAdmission
	handler   http.Handler
	resources []metav1.APIResource
}

func newTestEnv(t testing.TB, configure ...func(*endpoints.APIGroupVersion)) *testEnv {
	t.Helper()
	scheme := newScheme(t)
	env := &testEnv{scheme: scheme, codecs: responsewriters.NewCodecFactory(scheme), store: newFakeConfigMaps(), admission: &fakeAdmission{}}
	g := &endpoints.APIGroupVersion{
		GroupVersion: corev1.SchemeGroupVersion,
		Storage: map[string]rest.Storage{
			"configmaps":         env.store,
			"readonlyconfigmaps": readOnlyConfigMaps{env.store},
		},
		Scheme:    scheme,
		Codecs:    env.codecs,
		Admission: env.admission,
	}
	for _, c := range configure {
		c(g)
	}
	h, resources, err := g.Install()
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	env.handler, env.resources = withTestFilters(h), resources
	return env
}

// do sends one request; headers are name, value pairs.
func (e *testEnv) do(t testing.TB, method, path, body string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// seed stores config maps directly.
func (e *testEnv) seed(t testing.TB, cms ...*corev1.ConfigMap) {
	t.Helper()
	for _, cm := range cms {
		ctx := request.WithNamespace(context.Background(), cm.Namespace)
		if _, err := e.store.Create(ctx, cm, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}}, Data: data}
}

// withTestFilters is the part of the filter chain the handlers rely on:
// RequestInfo (from the real parser), user, namespace and a warning
// recorder written as Warning headers.
func withTestFilters(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, err := request.NewRequestInfoFactory().NewRequestInfo(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec := &warningRecorder{}
		ctx := request.WithRequestInfo(req.Context(), info)
		ctx = request.WithNamespace(ctx, info.Namespace)
		ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "tester"})
		ctx = warning.WithRecorder(ctx, rec)
		next.ServeHTTP(&warningWriter{ResponseWriter: w, rec: rec}, req.WithContext(ctx))
	})
}

type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (r *warningRecorder) AddWarning(_, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, text)
}

// warningWriter adds the recorded warnings as headers when the response
// starts, as the warning filter does.
type warningWriter struct {
	http.ResponseWriter
	rec         *warningRecorder
	wroteHeader bool
}

func (w *warningWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.wroteHeader = true
		w.rec.mu.Lock()
		for _, text := range w.rec.warnings {
			w.Header().Add("Warning", "299 - "+strconv.Quote(text))
		}
		w.rec.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *warningWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *warningWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// fakeAdmission labels created objects, rejects a name, and records what
// it saw.
type fakeAdmission struct {
	mu    sync.Mutex
	calls []string
}

func (a *fakeAdmission) record(phase string, attrs *admission.Attributes) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, fmt.Sprintf("%s %s %s/%s dryRun=%v user=%s", phase, attrs.Operation, attrs.Namespace, attrs.Name, attrs.DryRun, attrs.UserInfo.GetName()))
}

func (a *fakeAdmission) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

func (a *fakeAdmission) Admit(_ context.Context, attrs *admission.Attributes) error {
	a.record("admit", attrs)
	if attrs.Object != nil && attrs.Operation != admission.Delete {
		if accessor, err := meta.Accessor(attrs.Object); err == nil {
			l := accessor.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			l["admitted"] = "true"
			accessor.SetLabels(l)
		}
	}
	return nil
}

func (a *fakeAdmission) Validate(_ context.Context, attrs *admission.Attributes) error {
	a.record("validate", attrs)
	if attrs.Name == "forbidden" {
		return apierrors.NewForbidden(attrs.Resource.GroupResource(), attrs.Name, fmt.Errorf("denied by test admission"))
	}
	return nil
}

// readAll drains a body for error messages.
func readAll(r io.Reader) string {
	b, _ := io.ReadAll(r)
	return string(b)
}

func (e *testEnv) resourcesGV() schema.GroupVersion { return corev1.SchemeGroupVersion }
