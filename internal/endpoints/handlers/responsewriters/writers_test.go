package responsewriters

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
)

func TestErrorToAPIStatus(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "p")
	cases := []struct {
		name string
		err  error
		want metav1.Status
	}{
		{"api error", notFound, metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 404,
			Reason: metav1.StatusReasonNotFound, Message: `pods "p" not found`, Details: &metav1.StatusDetails{Name: "p", Kind: "pods"},
		}},
		{"wrapped api error", fmt.Errorf("getting: %w", notFound), metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 404,
			Reason: metav1.StatusReasonNotFound, Message: `pods "p" not found`, Details: &metav1.StatusDetails{Name: "p", Kind: "pods"},
		}},
		{"plain error", errors.New("disk on fire"), metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 500,
			Reason: metav1.StatusReasonUnknown, Message: "disk on fire",
		}},
		{"status without code", &apierrors.StatusError{ErrStatus: metav1.Status{Message: "m"}}, metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 500, Message: "m",
		}},
		{"success without code", &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusSuccess}}, metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: 200,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(&tc.want, ErrorToAPIStatus(tc.err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func codecs(t *testing.T) serializer.CodecFactory {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return serializer.NewCodecFactory(scheme)
}

func TestWriteObjectNegotiated(t *testing.T) {
	cf := codecs(t)
	cases := []struct {
		name, accept    string
		status          int
		listGVK         bool
		wantCode        int
		wantContentType string
		wantBody        string
	}{
		{"json", "application/json", 200, false, 200, "application/json", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}}` + "\n"},
		{"gvk in content type", "application/json;as=ConfigMap;g=;v=v1", 200, true, 200, "application/json;v=v1;as=ConfigMap", ""},
		{"nothing acceptable", "text/html", 200, false, 406, "application/json", ""},
		{"nothing acceptable keeps an error code", "text/html", 409, false, 409, "application/json", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("Accept", tc.accept)
			rec := httptest.NewRecorder()
			r := negotiation.EndpointRestrictions(negotiation.NoTransform{})
			if tc.listGVK {
				r = anyTransform{}
			}
			WriteObjectNegotiated(cf, r, corev1.SchemeGroupVersion, rec, req, tc.status, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, tc.listGVK)
			if rec.Code != tc.wantCode || rec.Header().Get("Content-Type") != tc.wantContentType {
				t.Errorf("%d %q, want %d %q", rec.Code, rec.Header().Get("Content-Type"), tc.wantCode, tc.wantContentType)
			}
			if tc.wantBody != "" && rec.Body.String() != tc.wantBody {
				t.Errorf("body %s, want %s", rec.Body, tc.wantBody)
			}
		})
	}
}

type anyTransform struct{}

func (anyTransform) AllowsMediaTypeTransform(string, string, *schema.GroupVersionKind) bool {
	return true
}
func (anyTransform) AllowsStreamSchema(string) bool { return false }

func TestLargeResponsesAreGzipped(t *testing.T) {
	cf := codecs(t)
	big := &corev1.ConfigMap{Data: map[string]string{"k": strings.Repeat("x", gzipThresholdBytes)}}
	for _, acceptGzip := range []bool{false, true} {
		req := httptest.NewRequest("GET", "/", nil)
		if acceptGzip {
			req.Header.Set("Accept-Encoding", "deflate, gzip;q=1.0")
		}
		rec := httptest.NewRecorder()
		WriteObjectNegotiated(cf, negotiation.NoTransform{}, corev1.SchemeGroupVersion, rec, req, http.StatusOK, big, false)
		var body io.Reader = rec.Body
		if got := rec.Header().Get("Content-Encoding") == "gzip"; got != acceptGzip {
			t.Fatalf("gzip %v, want %v", got, acceptGzip)
		}
		if acceptGzip {
			zr, err := gzip.NewReader(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			body = zr
		}
		data, _ := io.ReadAll(body)
		if !strings.HasPrefix(string(data), `{"kind":"ConfigMap"`) {
			t.Errorf("body starts %q", data[:40])
		}
	}
}

func TestErrorNegotiated(t *testing.T) {
	cf := codecs(t)
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept", "application/yaml")
	rec := httptest.NewRecorder()
	err := apierrors.NewTooManyRequests("slow down", 5)
	if code := ErrorNegotiated(err, cf, corev1.SchemeGroupVersion, rec, req); code != 429 {
		t.Errorf("code %d", code)
	}
	if rec.Header().Get("Retry-After") != "5" || rec.Header().Get("Content-Type") != "application/yaml" || !strings.Contains(rec.Body.String(), "reason: TooManyRequests") {
		t.Errorf("headers %v body %s", rec.Header(), rec.Body)
	}
}
