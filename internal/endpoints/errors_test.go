package endpoints_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/endpoints"
)

// notFoundBody is what kube-apiserver answers for an unknown path.
const notFoundBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"

func TestBadInput(t *testing.T) {
	runCases(t, []httpCase{
		{name: "malformed JSON", method: "POST", path: cmPath, body: `{"metadata":`,
			wantCode: http.StatusBadRequest, wantBody: []string{`"reason":"BadRequest"`, "the object provided is unrecognized (must be of type ConfigMap)"}},
		{name: "wrong kind", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}}`,
			wantCode: http.StatusBadRequest, wantBody: []string{`Secret in version \"v1\" cannot be handled as a ConfigMap`}},
		{name: "unknown apiVersion", method: "POST", path: cmPath, body: `{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"a"}}`,
			wantCode: http.StatusBadRequest, wantBody: []string{`ConfigMap in version \"v1\" cannot be handled as a ConfigMap`}},
		{name: "name mismatch", seed: seedA(), method: "PUT", path: cmAPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`,
			wantCode: http.StatusBadRequest, wantBody: []string{"the name of the object (b) does not match the name on the URL (a)"}},
		{name: "namespace mismatch on create", method: "POST", path: cmPath, body: `{"metadata":{"name":"a","namespace":"other"}}`,
			wantCode: http.StatusBadRequest, wantBody: []string{"the namespace of the provided object does not match the namespace sent on the request"}},
		{name: "namespace mismatch on update", seed: seedA(), method: "PUT", path: cmAPath, body: `{"metadata":{"name":"a","namespace":"other"}}`,
			wantCode: http.StatusBadRequest, wantBody: []string{"the namespace of the provided object does not match the namespace sent on the request"}},
		{name: "unsupported content type", method: "POST", path: cmPath, body: `x`, headers: []string{"Content-Type", "text/plain"},
			wantCode: http.StatusUnsupportedMediaType, wantBody: []string{`"reason":"UnsupportedMediaType"`,
				"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"}},
		{name: "unknown resource", method: "GET", path: "/api/v1/namespaces/ns1/widgets", wantCode: http.StatusNotFound,
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if rec.Body.String() != notFoundBody {
					t.Errorf("body %s\nwant %s", rec.Body, notFoundBody)
				}
			}},
		{name: "unknown subresource", method: "GET", path: cmAPath + "/status", wantCode: http.StatusNotFound},
		{name: "verb the storage lacks", method: "POST", path: "/api/v1/namespaces/ns1/readonlyconfigmaps", body: cmBody,
			wantCode: http.StatusMethodNotAllowed, wantBody: []string{`"reason":"MethodNotAllowed"`, "the server does not allow this method on the requested resource"}},
		{name: "create without namespace", method: "POST", path: "/api/v1/configmaps", body: cmBody, wantCode: http.StatusMethodNotAllowed},
		{name: "get without namespace", method: "GET", path: "/api/v1/configmaps/a", wantCode: http.StatusNotFound},
		{name: "unsupported field selector", method: "GET", path: cmPath + "?fieldSelector=data.k%3Dv",
			wantCode: http.StatusBadRequest, wantBody: []string{`\"data.k\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"`}},
		{name: "bad label selector", method: "GET", path: cmPath + "?labelSelector=a%20in%20(", wantCode: http.StatusBadRequest},
		{name: "dryRun must be All", method: "POST", path: cmPath + "?dryRun=Yes", body: cmBody,
			wantCode: http.StatusUnprocessableEntity, wantBody: []string{`CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"Yes\"]: supported values: \"All\"`}},
		{name: "bad fieldValidation", method: "POST", path: cmPath + "?fieldValidation=Loose", body: cmBody,
			wantCode: http.StatusUnprocessableEntity, wantBody: []string{"fieldValidation: Unsupported value"}},
		{name: "export is gone", method: "GET", path: cmAPath + "?export=true", wantCode: http.StatusBadRequest,
			wantBody: []string{"the export parameter, deprecated since v1.14, is no longer supported"}},
		{name: "watch-list options without resourceVersionMatch", method: "GET", path: cmPath + "?watch=true&sendInitialEvents=true",
			wantCode: http.StatusUnprocessableEntity, wantBody: []string{"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"}},
		{name: "sendInitialEvents on a list", method: "GET", path: cmPath + "?sendInitialEvents=true", wantCode: http.StatusUnprocessableEntity},
		{name: "field selector naming another object", method: "GET", path: "/api/v1/watch/namespaces/ns1/configmaps/a?fieldSelector=metadata.name%3Db",
			wantCode: http.StatusBadRequest, wantBody: []string{"fieldSelector metadata.name doesn't match requested name"}},
	})
}

func TestBodyTooLarge(t *testing.T) {
	env := newTestEnv(t, func(g *endpoints.APIGroupVersion) { g.MaxRequestBodyBytes = 64 })
	body := `{"metadata":{"name":"a"},"data":{"k":"` + strings.Repeat("x", 100) + `"}}`
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		path := cmAPath
		if method == "POST" {
			path = cmPath
		}
		rec := env.do(t, method, path, body, "Content-Type", "application/merge-patch+json")
		if method == "POST" || method == "PUT" {
			rec = env.do(t, method, path, body)
		}
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), `"message":"Request entity too large: limit is 64"`) {
			t.Errorf("%s: %d %s, want 413 limit is 64", method, rec.Code, rec.Body)
		}
	}
}

func TestMissingRequestInfo(t *testing.T) {
	env := newTestEnv(t)
	g := &endpoints.APIGroupVersion{GroupVersion: env.resourcesGV(), Scheme: env.scheme, Codecs: env.codecs}
	h, _, err := g.Install()
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("code %d, want 500", rec.Code)
	}
}
