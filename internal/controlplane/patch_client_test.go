package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

// The registry tests' -update lives in another package; this one is for
// the patch tests of the control plane.

const (
	patchNamespace = "bench" // created by startServer
	patchTestdata  = "testdata/patch"
)

// patchKindPaths says where a kind of the testdata is served.
var patchKindPaths = map[string]struct{ prefix, resource string }{
	"Deployment": {"/apis/apps/v1", "deployments"},
	"ConfigMap":  {"/api/v1", "configmaps"},
	"Service":    {"/api/v1", "services"},
	"Pod":        {"/api/v1", "pods"},
}

// patchClient sends raw requests to a running control plane, so a test
// chooses the exact content type and sees the exact status and warnings.
type patchClient struct {
	rc *rest.RESTClient
}

func newPatchClient(tb testing.TB, s *benchServer) *patchClient {
	tb.Helper()
	cfg := rest.CopyConfig(s.restCfg)
	cfg.ContentType = "application/json"
	cfg.AcceptContentTypes = "application/json"
	cfg.NegotiatedSerializer = clientscheme.Codecs.WithoutConversion()
	cfg.WarningHandler = rest.NoWarnings{} // the tests read them from each result
	cfg.UserAgent = "patch-test"           // the manager of managedFields
	rc, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return &patchClient{rc: rc}
}

// patchResponse is what the server answered to one request.
type patchResponse struct {
	code     int
	body     []byte
	err      error // an *apierrors.StatusError when the server sent a Status
	warnings []string
}

func toPatchResponse(r rest.Result) patchResponse {
	var resp patchResponse
	r.StatusCode(&resp.code)
	resp.body, _ = r.Raw()
	resp.err = r.Error()
	for _, w := range r.Warnings() {
		resp.warnings = append(resp.warnings, w.Text)
	}
	return resp
}

// patchObjectPath is the URL path of one object of kind in the test namespace,
// or of its subresource.
func patchObjectPath(tb testing.TB, kind, name, subresource string) string {
	tb.Helper()
	p, ok := patchKindPaths[kind]
	if !ok {
		tb.Fatalf("no path for kind %q", kind)
	}
	parts := []string{p.prefix, "namespaces", patchNamespace, p.resource, name}
	if subresource != "" {
		parts = append(parts, subresource)
	}
	return strings.Join(parts, "/")
}

// create posts testdata/patch/<file>.yaml under the given name and returns
// its kind.
func (c *patchClient) create(tb testing.TB, file, name string) string {
	tb.Helper()
	obj := readPatchObject(tb, file)
	obj["metadata"].(map[string]any)["name"] = name
	kind, _ := obj["kind"].(string)
	body, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	p := patchKindPaths[kind]
	r := c.rc.Post().AbsPath(p.prefix, "namespaces", patchNamespace, p.resource).Body(body).Do(context.Background())
	if err := r.Error(); err != nil {
		tb.Fatalf("creating %s %s: %v", kind, name, err)
	}
	return kind
}

func readPatchObject(tb testing.TB, file string) map[string]any {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(patchTestdata, file+".yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	obj := map[string]any{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		tb.Fatalf("%s.yaml: %v", file, err)
	}
	return obj
}

// patch sends body as a patch of patchType to path with the query.
func (c *patchClient) patch(path string, patchType types.PatchType, body string, query url.Values) patchResponse {
	req := c.rc.Patch(patchType).AbsPath(path).Body([]byte(body))
	for k, vs := range query {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	return toPatchResponse(req.Do(context.Background()))
}

func (c *patchClient) get(path string) patchResponse {
	return toPatchResponse(c.rc.Get().AbsPath(path).Do(context.Background()))
}

// statusProblems lists how resp differs from the Status error described:
// code, reason, the field of one of its causes (if field is set) and
// fragments of its message.
func statusProblems(resp patchResponse, code int, reason metav1.StatusReason, field string, fragments ...string) []string {
	var problems []string
	if resp.code != code {
		problems = append(problems, fmt.Sprintf("code = %d, want %d; body: %s", resp.code, code, resp.body))
	}
	var status apierrors.APIStatus
	if !errors.As(resp.err, &status) {
		return append(problems, fmt.Sprintf("error = %v (%T), want a Status error", resp.err, resp.err))
	}
	s := status.Status()
	if s.Reason != reason {
		problems = append(problems, fmt.Sprintf("reason = %q, want %q; message: %s", s.Reason, reason, s.Message))
	}
	for _, f := range fragments {
		if !strings.Contains(s.Message, f) {
			problems = append(problems, fmt.Sprintf("message %q does not contain %q", s.Message, f))
		}
	}
	if field != "" && !hasCauseField(s, field) {
		problems = append(problems, fmt.Sprintf("no cause with field %q in %+v", field, s.Details))
	}
	return problems
}

// wantStatusError fails t with the problems statusProblems finds.
func wantStatusError(t *testing.T, resp patchResponse, code int, reason metav1.StatusReason, field string, fragments ...string) {
	t.Helper()
	for _, p := range statusProblems(resp, code, reason, field, fragments...) {
		t.Error(p)
	}
}

func hasCauseField(s metav1.Status, field string) bool {
	if s.Details == nil {
		return false
	}
	for _, c := range s.Details.Causes {
		if c.Field == field {
			return true
		}
	}
	return false
}

// warningProblems lists how the warnings got differ from want: each of
// want must be in its own warning, in order, and there are no others.
func warningProblems(got, want []string) []string {
	if len(got) != len(want) {
		return []string{fmt.Sprintf("warnings = %q, want %d containing %q", got, len(want), want)}
	}
	var problems []string
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			problems = append(problems, fmt.Sprintf("warning %d = %q, want it to contain %q", i, got[i], want[i]))
		}
	}
	return problems
}

// Fixed values the golden files show instead of what the server chose.
const (
	patchGoldenUID       = "00000000-0000-0000-0000-000000000001"
	patchGoldenRV        = "1"
	patchGoldenTime      = "2026-01-01T00:00:00Z"
	patchGoldenClusterIP = "10.0.0.1"
)

// normalizePatched replaces the volatile fields of an object (as JSON) by fixed
// values and returns it as YAML with sorted keys.
func normalizePatched(tb testing.TB, body []byte) []byte {
	tb.Helper()
	obj := map[string]any{}
	if err := json.Unmarshal(body, &obj); err != nil {
		tb.Fatalf("decoding %s: %v", body, err)
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		setIfPresent(md, "uid", patchGoldenUID)
		setIfPresent(md, "resourceVersion", patchGoldenRV)
		setIfPresent(md, "creationTimestamp", patchGoldenTime)
		if mfs, ok := md["managedFields"].([]any); ok {
			for _, mf := range mfs {
				if m, ok := mf.(map[string]any); ok {
					setIfPresent(m, "time", patchGoldenTime)
				}
			}
		}
	}
	if obj["kind"] == "Service" {
		spec, _ := obj["spec"].(map[string]any)
		if ip, ok := spec["clusterIP"].(string); ok && ip != "None" {
			spec["clusterIP"] = patchGoldenClusterIP
			spec["clusterIPs"] = []any{patchGoldenClusterIP}
		}
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func setIfPresent(m map[string]any, key string, v any) {
	if _, ok := m[key]; ok {
		m[key] = v
	}
}

// comparePatchGolden compares got with testdata/patch/<name>, or writes it
// there under -update.
func comparePatchGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	registrytest.CompareGolden(t, filepath.Join(patchTestdata, name), got)
}

var patchNonName = regexp.MustCompile(`[^a-z0-9]+`)

// patchObjectName turns a test case name into an object name and a golden file
// stem: lower case, dashes, at most 63 characters.
func patchObjectName(caseName string) string {
	n := strings.Trim(patchNonName.ReplaceAllString(strings.ToLower(caseName), "-"), "-")
	if len(n) > 63 {
		n = strings.TrimRight(n[:63], "-")
	}
	return n
}
