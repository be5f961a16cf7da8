package endpoints_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestResponseMediaTypes(t *testing.T) {
	cases := []struct {
		accept          string
		wantCode        int
		wantContentType string
	}{
		{"", http.StatusOK, "application/json"},
		{"application/json", http.StatusOK, "application/json"},
		{"application/yaml", http.StatusOK, "application/yaml"},
		{"application/vnd.kubernetes.protobuf", http.StatusOK, "application/vnd.kubernetes.protobuf"},
		{"application/vnd.kubernetes.protobuf, application/json", http.StatusOK, "application/vnd.kubernetes.protobuf"},
		{"application/json;q=0.5, application/yaml", http.StatusOK, "application/yaml"},
		{"*/*", http.StatusOK, "application/json"},
		{"application/*", http.StatusOK, "application/json"},
		{"text/html, */*;q=0.1", http.StatusOK, "application/json"},
		{"text/html", http.StatusNotAcceptable, "application/json"},
		{"application/json;as=Widget;g=example.com;v=v1", http.StatusNotAcceptable, "application/json"},
	}
	env := newTestEnv(t)
	env.seed(t, seedA()...)
	for _, tc := range cases {
		t.Run(tc.accept, func(t *testing.T) {
			rec := env.do(t, "GET", cmAPath, "", "Accept", tc.accept)
			if rec.Code != tc.wantCode || rec.Header().Get("Content-Type") != tc.wantContentType {
				t.Fatalf("code %d type %q, want %d %q; body %s", rec.Code, rec.Header().Get("Content-Type"), tc.wantCode, tc.wantContentType, rec.Body)
			}
			if rec.Code == http.StatusNotAcceptable {
				want := "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("body %s, want %q", rec.Body, want)
				}
				return
			}
			obj, _, err := env.codecs.UniversalDeserializer().Decode(rec.Body.Bytes(), nil, nil)
			if err != nil {
				t.Fatalf("decoding %s: %v", tc.wantContentType, err)
			}
			if cm, ok := obj.(*corev1.ConfigMap); !ok || cm.Name != "a" || cm.Data["k"] != "v" {
				t.Errorf("decoded %#v", obj)
			}
		})
	}
}

func TestProtobufRequestBody(t *testing.T) {
	env := newTestEnv(t)
	info, _ := runtime.SerializerInfoForMediaType(env.codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	cm := configMap("ns1", "a", map[string]string{"k": "v"})
	cm.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	body, err := runtime.Encode(env.codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion), cm)
	if err != nil {
		t.Fatal(err)
	}
	rec := env.do(t, "POST", cmPath, string(body), "Content-Type", runtime.ContentTypeProtobuf)
	if rec.Code != http.StatusCreated {
		t.Fatalf("code %d: %s", rec.Code, rec.Body)
	}
	if got := stored(t, env, "ns1", "a"); got == nil || got.Data["k"] != "v" {
		t.Errorf("stored %+v", got)
	}
}

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

func decodeTable(t *testing.T, rec *httptest.ResponseRecorder) *metav1.Table {
	t.Helper()
	table := &metav1.Table{}
	if err := json.Unmarshal(rec.Body.Bytes(), table); err != nil {
		t.Fatalf("decoding table %s: %v", rec.Body, err)
	}
	return table
}

func TestTable(t *testing.T) {
	two := []*corev1.ConfigMap{configMap("ns1", "a", map[string]string{"k": "v"}), configMap("ns1", "b", nil)}
	runCases(t, []httpCase{
		{name: "list as table with metadata rows", seed: two, method: "GET", path: cmPath, headers: []string{"Accept", tableAccept + ", application/json"},
			wantCode: http.StatusOK, wantBody: []string{`"kind":"Table","apiVersion":"meta.k8s.io/v1"`, `"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1"`},
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				// Upstream lists no conversion in the Content-Type.
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				table := decodeTable(t, rec)
				if len(table.ColumnDefinitions) != 2 || len(table.Rows) != 2 || table.Rows[0].Cells[0] != "a" {
					t.Errorf("table %+v", table)
				}
				if strings.Contains(rec.Body.String(), `"data"`) {
					t.Error("rows embed the whole object by default")
				}
			}},
		{name: "get as table, includeObject=Object", seed: two, method: "GET", path: cmAPath + "?includeObject=Object", headers: []string{"Accept", tableAccept},
			wantCode: http.StatusOK, wantBody: []string{`"object":{"kind":"ConfigMap","apiVersion":"v1"`, `"data":{"k":"v"}`}},
		{name: "includeObject=None", seed: two, method: "GET", path: cmPath + "?includeObject=None", headers: []string{"Accept", tableAccept},
			wantCode: http.StatusOK, check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if strings.Contains(rec.Body.String(), `"object":{`) {
					t.Errorf("rows carry objects: %s", rec.Body)
				}
			}},
		{name: "bad includeObject", seed: two, method: "GET", path: cmPath + "?includeObject=All", headers: []string{"Accept", tableAccept},
			wantCode: http.StatusBadRequest, wantBody: []string{"Unable to convert to Table as requested"}},
		{name: "v1beta1 table", seed: two, method: "GET", path: cmPath, headers: []string{"Accept", "application/json;as=Table;v=v1beta1;g=meta.k8s.io"},
			wantCode: http.StatusOK, wantBody: []string{`"kind":"Table","apiVersion":"meta.k8s.io/v1beta1"`}},
		{name: "yaml table", seed: two, method: "GET", path: cmPath, headers: []string{"Accept", "application/yaml;as=Table;v=v1;g=meta.k8s.io"},
			wantCode: http.StatusOK, wantBody: []string{"kind: Table\n"}},
		{name: "no protobuf table, as upstream", seed: two, method: "GET", path: cmPath,
			headers: []string{"Accept", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"},
			// Nothing acceptable even for the error: upstream falls back to
			// indented JSON.
			wantCode: http.StatusNotAcceptable, wantBody: []string{`"reason": "NotAcceptable"`}},
		{name: "no table without a table convertor", seed: two, method: "GET", path: "/api/v1/namespaces/ns1/readonlyconfigmaps/a",
			headers: []string{"Accept", tableAccept}, wantCode: http.StatusNotAcceptable},
		{name: "errors stay Status", method: "GET", path: cmPath + "/nope", headers: []string{"Accept", tableAccept},
			wantCode: http.StatusNotFound, wantBody: []string{`"kind": "Status"`, `"reason": "NotFound"`}},
	})
}

func TestPartialObjectMetadata(t *testing.T) {
	two := []*corev1.ConfigMap{configMap("ns1", "a", map[string]string{"k": "v"}), configMap("ns1", "b", nil)}
	runCases(t, []httpCase{
		{name: "list", seed: two, method: "GET", path: cmPath, headers: []string{"Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
			wantCode: http.StatusOK, wantBody: []string{`"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1"`, `"name":"b"`},
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if strings.Contains(rec.Body.String(), `"data"`) {
					t.Errorf("carries data: %s", rec.Body)
				}
			}},
		{name: "v1beta1 list", seed: two, method: "GET", path: cmPath, headers: []string{"Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1"},
			wantCode: http.StatusOK, wantBody: []string{`"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1"`}},
		{name: "empty list", method: "GET", path: cmPath, headers: []string{"Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
			wantCode: http.StatusOK, wantBody: []string{`"items":[]`}},
		{name: "object", seed: two, method: "GET", path: cmAPath, headers: []string{"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"},
			wantCode: http.StatusOK, wantBody: []string{`"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1"`, `"name":"a"`}},
		{name: "protobuf object", seed: two, method: "GET", path: cmAPath, headers: []string{"Accept", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"},
			wantCode: http.StatusOK, check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if ct := rec.Header().Get("Content-Type"); ct != "application/vnd.kubernetes.protobuf" {
					t.Errorf("Content-Type %q", ct)
				}
			}},
		{name: "list asked as object", seed: two, method: "GET", path: cmPath, headers: []string{"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"},
			wantCode: http.StatusNotAcceptable, wantBody: []string{"you requested PartialObjectMetadata, but the requested object is a list"}},
	})
}

func TestFieldValidation(t *testing.T) {
	unknown := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"spec":{"foo":1}}`
	duplicate := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1"},"data":{"k":"2"}}`
	warned := func(want string) func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
			got := rec.Header().Values("Warning")
			if want == "" && len(got) > 0 || want != "" && (len(got) != 1 || !strings.Contains(got[0], want)) {
				t.Errorf("warnings %q, want %q", got, want)
			}
		}
	}
	runCases(t, []httpCase{
		{name: "strict create", method: "POST", path: cmPath + "?fieldValidation=Strict", body: unknown,
			wantCode: http.StatusBadRequest, wantBody: []string{`ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"spec\"`}},
		{name: "strict duplicate", method: "POST", path: cmPath + "?fieldValidation=Strict", body: duplicate,
			wantCode: http.StatusBadRequest, wantBody: []string{`duplicate field \"data\"`}},
		{name: "warn is the default", method: "POST", path: cmPath, body: unknown, wantCode: http.StatusCreated, check: warned(`unknown field \"spec\"`)},
		{name: "ignore", method: "POST", path: cmPath + "?fieldValidation=Ignore", body: unknown, wantCode: http.StatusCreated, check: warned("")},
		{name: "strict update", seed: seedA(), method: "PUT", path: cmAPath + "?fieldValidation=Strict", body: unknown, wantCode: http.StatusBadRequest},
		{name: "strict yaml", method: "POST", path: cmPath + "?fieldValidation=Strict", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nspec: 1\n",
			headers: []string{"Content-Type", "application/yaml"}, wantCode: http.StatusBadRequest, wantBody: []string{`unknown field \"spec\"`}},
		{name: "strict merge patch", seed: seedA(), method: "PATCH", path: cmAPath + "?fieldValidation=Strict", body: `{"spec":{"foo":1}}`,
			headers: []string{"Content-Type", "application/merge-patch+json"}, wantCode: http.StatusUnprocessableEntity,
			wantBody: []string{`strict decoding error: unknown field \"spec\"`}},
		{name: "warn merge patch", seed: seedA(), method: "PATCH", path: cmAPath, body: `{"spec":{"foo":1}}`,
			headers: []string{"Content-Type", "application/merge-patch+json"}, wantCode: http.StatusOK, check: warned(`unknown field \"spec\"`)},
		{name: "strict strategic patch", seed: seedA(), method: "PATCH", path: cmAPath + "?fieldValidation=Strict", body: `{"spec":{"foo":1}}`,
			headers: []string{"Content-Type", "application/strategic-merge-patch+json"}, wantCode: http.StatusUnprocessableEntity,
			wantBody: []string{`unknown field \"spec\"`}},
		{name: "duplicate in a JSON patch", seed: seedA(), method: "PATCH", path: cmAPath + "?fieldValidation=Strict",
			body:    `[{"op":"add","op":"add","path":"/data/x","value":"y"}]`,
			headers: []string{"Content-Type", "application/json-patch+json"}, wantCode: http.StatusUnprocessableEntity,
			wantBody: []string{`json patch duplicate field \"[0].op\"`}},
	})
}
