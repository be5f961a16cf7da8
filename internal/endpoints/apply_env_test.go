package endpoints_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/registry/apps/deployment"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

// The paths of the deployment "d" in namespace ns1.
const (
	deploymentsPath = "/apis/apps/v1/namespaces/ns1/deployments"
	dPath           = deploymentsPath + "/d"
	dStatusPath     = dPath + "/status"
	applyType       = "application/apply-patch+yaml"
)

// applyEnv serves apps/v1 deployments from the real registry over a
// memory backend, with upstream's schema (client-go's) as type converter.
type applyEnv struct {
	handler http.Handler
}

func newApplyEnv(t testing.TB) *applyEnv {
	t.Helper()
	return newApplyEnvWith(t, newTestTypeConverter(), nil)
}

// testTypeConverter is upstream's schema of the kinds clients apply
// (client-go's) and, for autoscaling/v1 Scale, which that lacks, a
// schema deduced from the object.
type testTypeConverter struct {
	managedfields.TypeConverter
	deduced managedfields.TypeConverter
}

func newTestTypeConverter() testTypeConverter {
	return testTypeConverter{
		TypeConverter: applyconfigurations.NewTypeConverter(clientgoscheme.Scheme),
		deduced:       managedfields.NewDeducedTypeConverter(),
	}
}

func (c testTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if _, ok := obj.(*autoscalingv1.Scale); ok || obj.GetObjectKind().GroupVersionKind().Kind == "Scale" {
		return c.deduced.ObjectToTyped(obj, opts...)
	}
	return c.TypeConverter.ObjectToTyped(obj, opts...)
}

// newApplyEnvWith takes the type converter (nil: none) and admission.
func newApplyEnvWith(t testing.TB, tc managedfields.TypeConverter, adm admission.Interface) *applyEnv {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := deployment.NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	g := &endpoints.APIGroupVersion{
		GroupVersion:  appsv1.SchemeGroupVersion,
		Storage:       storage,
		Scheme:        scheme,
		Codecs:        serializer.NewCodecFactory(scheme),
		TypeConverter: tc,
		Admission:     adm,
	}
	h, _, err := g.Install()
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	return &applyEnv{handler: withTestFilters(h)}
}

// applyRequest is one call: the content type goes with the body.
type applyRequest struct {
	method, path, contentType, body string
	userAgent                       string
}

func (e *applyEnv) do(t testing.TB, r applyRequest) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	req.Header.Set("User-Agent", r.userAgent)
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// get reads the deployment; nil when it does not exist.
func (e *applyEnv) get(t testing.TB, path string) *appsv1.Deployment {
	t.Helper()
	rec := e.do(t, applyRequest{method: "GET", path: path})
	if rec.Code == http.StatusNotFound {
		return nil
	}
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(rec.Body.Bytes(), d); err != nil {
		t.Fatal(err)
	}
	return d
}

// status decodes a Status response.
func status(t testing.TB, rec *httptest.ResponseRecorder) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
		t.Fatalf("decoding Status %s: %v", rec.Body, err)
	}
	return s
}

// entry finds the managedFields entry of manager and subresource.
func entry(d *appsv1.Deployment, manager, subresource string) (metav1.ManagedFieldsEntry, bool) {
	for _, e := range d.ManagedFields {
		if e.Manager == manager && e.Subresource == subresource {
			return e, true
		}
	}
	return metav1.ManagedFieldsEntry{}, false
}

// owns reports whether the FieldsV1 set of e holds the field at path
// (elements as they are written there: "f:spec", `k:{"name":"app"}`).
func owns(t testing.TB, e metav1.ManagedFieldsEntry, path ...string) bool {
	t.Helper()
	if e.FieldsV1 == nil {
		return false
	}
	var node map[string]any
	if err := json.Unmarshal(e.FieldsV1.Raw, &node); err != nil {
		t.Fatalf("fieldsV1 of %s: %v", e.Manager, err)
	}
	for _, p := range path {
		next, ok := node[p].(map[string]any)
		if !ok {
			return false
		}
		node = next
	}
	return true
}

// wantEntry is a managedFields entry expected on a deployment.
type wantEntry struct {
	manager, subresource string
	operation            metav1.ManagedFieldsOperationType
	// owns and notOwns are field paths as FieldsV1 writes them.
	owns, notOwns [][]string
	// timeless: upstream's scale handler gives a manager new to the
	// parent no time.
	timeless bool
}

// checkEntries checks d has exactly the entries of want, each of apps/v1
// in FieldsV1 with a time, owning what want says.
func checkEntries(t testing.TB, d *appsv1.Deployment, want []wantEntry) {
	t.Helper()
	var gotKeys, wantKeys []string
	for _, e := range d.ManagedFields {
		gotKeys = append(gotKeys, e.Manager+"/"+e.Subresource)
	}
	for _, w := range want {
		wantKeys = append(wantKeys, w.manager+"/"+w.subresource)
	}
	slices.Sort(gotKeys)
	slices.Sort(wantKeys)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("managedFields of %v, want %v", gotKeys, wantKeys)
	}
	for _, w := range want {
		e, _ := entry(d, w.manager, w.subresource)
		if e.Operation != w.operation || e.APIVersion != "apps/v1" || e.FieldsType != "FieldsV1" || (e.Time == nil) != w.timeless {
			t.Errorf("entry of %s: operation %s apiVersion %s fieldsType %s time %v, want %s apps/v1 FieldsV1 (timeless %v)",
				w.manager, e.Operation, e.APIVersion, e.FieldsType, e.Time, w.operation, w.timeless)
		}
		for _, p := range w.owns {
			if !owns(t, e, p...) {
				t.Errorf("%s does not own %v: %s", w.manager, p, e.FieldsV1.Raw)
			}
		}
		for _, p := range w.notOwns {
			if owns(t, e, p...) {
				t.Errorf("%s owns %v: %s", w.manager, p, e.FieldsV1.Raw)
			}
		}
	}
}
