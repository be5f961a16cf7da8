package negotiation

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

func codecs(t testing.TB) serializer.CodecFactory {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return serializer.NewCodecFactory(scheme)
}

// allowTable allows the Table conversion in JSON only.
type allowTable struct{}

func (allowTable) AllowsMediaTypeTransform(_, sub string, target *schema.GroupVersionKind) bool {
	return target == nil || target.Kind == "Table" && sub == "json"
}
func (allowTable) AllowsStreamSchema(s string) bool { return s == "watch" }

func TestNegotiateMediaTypeOptions(t *testing.T) {
	table := &schema.GroupVersionKind{Group: "meta.k8s.io", Version: "v1", Kind: "Table"}
	cases := []struct {
		accept      string
		r           EndpointRestrictions
		wantOK      bool
		wantType    string
		wantConvert *schema.GroupVersionKind
		wantPretty  bool
		wantStream  string
	}{
		{"", NoTransform{}, true, "application/json", nil, false, ""},
		{"application/yaml", NoTransform{}, true, "application/yaml", nil, false, ""},
		{"application/vnd.kubernetes.protobuf", NoTransform{}, true, "application/vnd.kubernetes.protobuf", nil, false, ""},
		{"*/*", NoTransform{}, true, "application/json", nil, false, ""},
		{"*", NoTransform{}, true, "application/json", nil, false, ""},
		{"application/*", NoTransform{}, true, "application/json", nil, false, ""},
		{"text/*;q=0.9, application/yaml;q=0.1", NoTransform{}, true, "application/yaml", nil, false, ""},
		{"*/*;q=0.5, application/yaml;q=0.5", NoTransform{}, true, "application/yaml", nil, false, ""},
		{"application/json;pretty=1", NoTransform{}, true, "application/json", nil, true, ""},
		{"application/json;stream=watch", NoTransform{}, true, "application/json", nil, false, "watch"},
		{"application/yaml;stream=watch", NoTransform{}, false, "", nil, false, ""},
		{"application/json;stream=other", NoTransform{}, false, "", nil, false, ""},
		{"application/json;as=Table;v=v1;g=meta.k8s.io", NoTransform{}, false, "", nil, false, ""},
		{"application/json;as=Table;v=v1;g=meta.k8s.io", allowTable{}, true, "application/json", table, false, ""},
		{"application/yaml;as=Table;v=v1;g=meta.k8s.io, application/json", allowTable{}, true, "application/json", nil, false, ""},
		{"text/html", NoTransform{}, false, "", nil, false, ""},
		{"garbage, ,/json", NoTransform{}, false, "", nil, false, ""},
	}
	infos := codecs(t).SupportedMediaTypes()
	for _, tc := range cases {
		t.Run(tc.accept, func(t *testing.T) {
			got, ok := NegotiateMediaTypeOptions(tc.accept, infos, tc.r)
			if ok != tc.wantOK {
				t.Fatalf("ok %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			if got.Accepted.MediaType != tc.wantType || got.Pretty != tc.wantPretty || got.Stream != tc.wantStream {
				t.Errorf("got %s pretty=%v stream=%q", got.Accepted.MediaType, got.Pretty, got.Stream)
			}
			if diff := cmp.Diff(tc.wantConvert, got.Convert); diff != "" {
				t.Errorf("convert (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNegotiateOutputMediaType(t *testing.T) {
	cf := codecs(t)
	cases := []struct {
		path, userAgent string
		wantPretty      bool
	}{
		{"/x", "kubectl/v1.37", false},
		{"/x", "curl/8.5", true},
		{"/x", "Mozilla/5.0 (X11)", true},
		{"/x", "Wget/1.21", true},
		{"/x?pretty=true", "kubectl", true},
		{"/x?pretty=false", "curl/8.5", false},
		{"/x?pretty=", "curl/8.5", true},
	}
	for _, tc := range cases {
		req := httptest.NewRequest("GET", tc.path, nil)
		req.Header.Set("User-Agent", tc.userAgent)
		_, info, err := NegotiateOutputMediaType(req, cf, NoTransform{})
		if err != nil {
			t.Fatal(err)
		}
		if pretty := info.Serializer == info.PrettySerializer; pretty != tc.wantPretty {
			t.Errorf("%s %s: pretty %v, want %v", tc.path, tc.userAgent, pretty, tc.wantPretty)
		}
	}
	req := httptest.NewRequest("GET", "/x", nil)
	req.Header.Set("Accept", "text/plain")
	_, _, err := NegotiateOutputMediaType(req, cf, NoTransform{})
	want := "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
	if err == nil || err.Error() != want {
		t.Errorf("err %v, want %q", err, want)
	}
}

func TestNegotiateInputSerializer(t *testing.T) {
	cf := codecs(t)
	cases := []struct {
		contentType string
		streaming   bool
		want        string
		wantErr     string
	}{
		{"", false, "application/json", ""},
		{"application/json; charset=utf-8", false, "application/json", ""},
		{"application/yaml", false, "application/yaml", ""},
		{"application/vnd.kubernetes.protobuf", false, "application/vnd.kubernetes.protobuf", ""},
		{"text/plain", false, "", "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"text/plain", true, "", "the body of the request was in an unknown format - accepted media types include: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"},
		{";;", false, "", "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
	}
	for _, tc := range cases {
		info, err := NegotiateInputSerializerForMediaType(tc.contentType, tc.streaming, cf)
		switch {
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
			t.Errorf("%q: err %v, want %q", tc.contentType, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || info.MediaType != tc.want):
			t.Errorf("%q: %s %v, want %s", tc.contentType, info.MediaType, err, tc.want)
		}
	}
}

func TestParseAccept(t *testing.T) {
	got := parseAccept("*/*;q=0.8, text/*, application/json;as=Table;g=meta.k8s.io, image/png;q=0.9")
	var order []string
	for _, c := range got {
		order = append(order, c.Type+"/"+c.SubType)
	}
	want := []string{"application/json", "text/*", "image/png", "*/*"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if got[0].Params["as"] != "Table" || got[0].Params["g"] != "meta.k8s.io" {
		t.Errorf("params %v", got[0].Params)
	}
}
