package endpoints_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// httpCase is one request against a fresh testEnv and what must come back.
type httpCase struct {
	name     string
	seed     []*corev1.ConfigMap
	method   string
	path     string
	body     string
	headers  []string
	wantCode int
	// wantBody are substrings of the response body.
	wantBody []string
	check    func(t *testing.T, env *testEnv, rec *httptest.ResponseRecorder)
}

func runCases(t *testing.T, cases []httpCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			env.seed(t, tc.seed...)
			rec := env.do(t, tc.method, tc.path, tc.body, tc.headers...)
			if rec.Code != tc.wantCode {
				t.Fatalf("%s %s: code %d, want %d; body %s", tc.method, tc.path, rec.Code, tc.wantCode, rec.Body)
			}
			for _, want := range tc.wantBody {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("body %s\ndoes not contain %s", rec.Body, want)
				}
			}
			if tc.check != nil {
				tc.check(t, env, rec)
			}
		})
	}
}

func decodeConfigMap(t *testing.T, rec *httptest.ResponseRecorder) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := json.Unmarshal(rec.Body.Bytes(), cm); err != nil {
		t.Fatalf("decoding %s: %v", rec.Body, err)
	}
	return cm
}

func stored(t *testing.T, env *testEnv, ns, name string) *corev1.ConfigMap {
	t.Helper()
	env.store.mu.Lock()
	defer env.store.mu.Unlock()
	return env.store.objs[key(ns, name)]
}

const (
	cmPath  = "/api/v1/namespaces/ns1/configmaps"
	cmAPath = cmPath + "/a"
	cmBody  = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`
)

func seedA() []*corev1.ConfigMap {
	return []*corev1.ConfigMap{configMap("ns1", "a", map[string]string{"k": "v"})}
}

func TestCreate(t *testing.T) {
	runCases(t, []httpCase{
		{
			name: "created with 201, admitted, typed on the wire", method: "POST", path: cmPath, body: cmBody,
			wantCode: http.StatusCreated, wantBody: []string{`"kind":"ConfigMap"`, `"apiVersion":"v1"`},
			check: func(t *testing.T, env *testEnv, rec *httptest.ResponseRecorder) {
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				cm := decodeConfigMap(t, rec)
				if cm.Namespace != "ns1" || cm.UID == "" || cm.Labels["admitted"] != "true" {
					t.Errorf("created %+v: want namespace ns1, a uid and the admission label", cm.ObjectMeta)
				}
				want := []string{"admit CREATE ns1/a dryRun=false user=tester", "validate CREATE ns1/a dryRun=false user=tester"}
				if diff := cmp.Diff(want, env.admission.seen()); diff != "" {
					t.Errorf("admission calls (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "server fields of the body are wiped", method: "POST", path: cmPath,
			body:     `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"mine","creationTimestamp":"2000-01-01T00:00:00Z"}}`,
			wantCode: http.StatusCreated,
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if cm := decodeConfigMap(t, rec); cm.UID != "uid-a" || cm.CreationTimestamp.Year() != 2026 {
					t.Errorf("uid %q created %v: the client's values survived", cm.UID, cm.CreationTimestamp)
				}
			},
		},
		{
			name: "generateName", method: "POST", path: cmPath, body: `{"metadata":{"generateName":"g-"}}`,
			wantCode: http.StatusCreated, wantBody: []string{`"name":"g-x1y2z"`},
			check: func(t *testing.T, env *testEnv, _ *httptest.ResponseRecorder) {
				if got := env.admission.seen(); len(got) != 2 || got[1] != "validate CREATE ns1/g-x1y2z dryRun=false user=tester" {
					t.Errorf("validation saw %v, want the generated name", got)
				}
			},
		},
		{
			name: "dry run is not stored", method: "POST", path: cmPath + "?dryRun=All", body: cmBody,
			wantCode: http.StatusCreated,
			check: func(t *testing.T, env *testEnv, _ *httptest.ResponseRecorder) {
				if stored(t, env, "ns1", "a") != nil {
					t.Error("dry run stored the object")
				}
				if got := env.admission.seen(); len(got) == 0 || !strings.Contains(got[0], "dryRun=true") {
					t.Errorf("admission saw %v, want dryRun=true", got)
				}
			},
		},
		{
			name: "YAML body and response", method: "POST", path: cmPath,
			body:     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
			headers:  []string{"Content-Type", "application/yaml", "Accept", "application/yaml"},
			wantCode: http.StatusCreated, wantBody: []string{"kind: ConfigMap\n", "name: a\n"},
		},
		{
			name: "already exists", seed: seedA(), method: "POST", path: cmPath, body: cmBody,
			wantCode: http.StatusConflict, wantBody: []string{`"reason":"AlreadyExists"`, `configmaps \"a\" already exists`},
		},
		{
			name: "validating admission denies", method: "POST", path: cmPath, body: `{"metadata":{"name":"forbidden"}}`,
			wantCode: http.StatusForbidden, wantBody: []string{"denied by test admission"},
		},
	})
}

func TestGetAndList(t *testing.T) {
	two := []*corev1.ConfigMap{configMap("ns1", "a", nil), configMap("ns2", "b", nil)}
	runCases(t, []httpCase{
		{name: "get", seed: seedA(), method: "GET", path: cmAPath, wantCode: http.StatusOK,
			wantBody: []string{`"kind":"ConfigMap","apiVersion":"v1"`, `"name":"a"`}},
		{name: "get missing", method: "GET", path: cmPath + "/nope", wantCode: http.StatusNotFound,
			wantBody: []string{`"message":"configmaps \"nope\" not found"`, `"reason":"NotFound"`}},
		{name: "list in a namespace", seed: two, method: "GET", path: cmPath, wantCode: http.StatusOK,
			wantBody: []string{`"kind":"ConfigMapList"`, `"name":"a"`},
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if strings.Contains(rec.Body.String(), `"name":"b"`) {
					t.Error("listed another namespace")
				}
			}},
		{name: "list all namespaces", seed: two, method: "GET", path: "/api/v1/configmaps", wantCode: http.StatusOK,
			wantBody: []string{`"name":"a"`, `"name":"b"`}},
		{name: "empty list has items []", method: "GET", path: cmPath, wantCode: http.StatusOK, wantBody: []string{`"items":[]`}},
		{name: "label selector", seed: two, method: "GET", path: "/api/v1/configmaps?labelSelector=app%3Db", wantCode: http.StatusOK,
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if strings.Contains(rec.Body.String(), `"name":"a"`) || !strings.Contains(rec.Body.String(), `"name":"b"`) {
					t.Errorf("selected %s", rec.Body)
				}
			}},
		{name: "field selector", seed: two, method: "GET", path: "/api/v1/configmaps?fieldSelector=metadata.namespace%3Dns2", wantCode: http.StatusOK,
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if strings.Contains(rec.Body.String(), `"name":"a"`) {
					t.Errorf("selected %s", rec.Body)
				}
			}},
		{name: "pretty", seed: seedA(), method: "GET", path: cmAPath + "?pretty=true", wantCode: http.StatusOK,
			wantBody: []string{"{\n  \"kind\": \"ConfigMap\""}},
		{name: "curl gets pretty output", seed: seedA(), method: "GET", path: cmAPath, headers: []string{"User-Agent", "curl/8.0"},
			wantCode: http.StatusOK, wantBody: []string{"{\n  \"kind\": \"ConfigMap\""}},
	})
}

func TestUpdate(t *testing.T) {
	runCases(t, []httpCase{
		{
			name: "update", seed: seedA(), method: "PUT", path: cmAPath,
			body:     `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns1"},"data":{"k":"new"}}`,
			wantCode: http.StatusOK, wantBody: []string{`"k":"new"`, `"admitted":"true"`},
			check: func(t *testing.T, env *testEnv, _ *httptest.ResponseRecorder) {
				want := []string{"admit UPDATE ns1/a dryRun=false user=tester", "validate UPDATE ns1/a dryRun=false user=tester"}
				if diff := cmp.Diff(want, env.admission.seen()); diff != "" {
					t.Errorf("admission calls (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "stale resourceVersion conflicts", seed: seedA(), method: "PUT", path: cmAPath,
			body:     `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"99"}}`,
			wantCode: http.StatusConflict, wantBody: []string{`"reason":"Conflict"`},
		},
		{
			name: "uid of another object conflicts", seed: seedA(), method: "PUT", path: cmAPath,
			body:     `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"other"}}`,
			wantCode: http.StatusConflict,
		},
		{
			name: "missing", method: "PUT", path: cmAPath, body: cmBody, wantCode: http.StatusNotFound,
		},
	})
}

func TestPatch(t *testing.T) {
	withOwners := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "a", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "Pod", Name: "p1", UID: "u1"},
	}}}
	runCases(t, []httpCase{
		{name: "merge patch", seed: seedA(), method: "PATCH", path: cmAPath, body: `{"data":{"k2":"v2"}}`,
			headers: []string{"Content-Type", "application/merge-patch+json"}, wantCode: http.StatusOK,
			wantBody: []string{`"k":"v"`, `"k2":"v2"`, `"admitted":"true"`}},
		{name: "JSON patch", seed: seedA(), method: "PATCH", path: cmAPath, body: `[{"op":"replace","path":"/data/k","value":"x"}]`,
			headers: []string{"Content-Type", "application/json-patch+json"}, wantCode: http.StatusOK, wantBody: []string{`"k":"x"`}},
		{name: "strategic merge patch merges lists by key", seed: []*corev1.ConfigMap{withOwners}, method: "PATCH", path: cmAPath,
			body:    `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p2","uid":"u2"}]}}`,
			headers: []string{"Content-Type", "application/strategic-merge-patch+json"}, wantCode: http.StatusOK,
			wantBody: []string{`"uid":"u1"`, `"uid":"u2"`}},
		{name: "merge patch replaces lists", seed: []*corev1.ConfigMap{withOwners}, method: "PATCH", path: cmAPath,
			body:    `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p2","uid":"u2"}]}}`,
			headers: []string{"Content-Type", "application/merge-patch+json"}, wantCode: http.StatusOK,
			check: func(t *testing.T, _ *testEnv, rec *httptest.ResponseRecorder) {
				if strings.Contains(rec.Body.String(), `"uid":"u1"`) {
					t.Errorf("merge patch kept the old list: %s", rec.Body)
				}
			}},
		{name: "missing object", method: "PATCH", path: cmAPath, body: `{}`,
			headers: []string{"Content-Type", "application/merge-patch+json"}, wantCode: http.StatusNotFound},
		{name: "patch cannot rename", seed: seedA(), method: "PATCH", path: cmAPath, body: `{"metadata":{"name":"b"}}`,
			headers: []string{"Content-Type", "application/merge-patch+json"}, wantCode: http.StatusBadRequest,
			wantBody: []string{"the name of the object (b) does not match the name on the URL (a)"}},
		{name: "failed JSON patch test is 422", seed: seedA(), method: "PATCH", path: cmAPath,
			body:    `[{"op":"test","path":"/data/k","value":"other"}]`,
			headers: []string{"Content-Type", "application/json-patch+json"}, wantCode: http.StatusUnprocessableEntity},
		{name: "apply is not served yet", seed: seedA(), method: "PATCH", path: cmAPath, body: `{}`,
			headers: []string{"Content-Type", "application/apply-patch+yaml"}, wantCode: http.StatusUnsupportedMediaType,
			wantBody: []string{"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json"}},
		{name: "invalid JSON", seed: seedA(), method: "PATCH", path: cmAPath, body: `{`,
			headers: []string{"Content-Type", "application/merge-patch+json"}, wantCode: http.StatusBadRequest, wantBody: []string{"invalid JSON patch"}},
	})
}

func TestDelete(t *testing.T) {
	finalized := configMap("ns1", "a", nil)
	finalized.Finalizers = []string{"example.com/keep"}
	runCases(t, []httpCase{
		{name: "returns the deleted object", seed: seedA(), method: "DELETE", path: cmAPath, wantCode: http.StatusOK,
			wantBody: []string{`"kind":"ConfigMap"`, `"name":"a"`},
			check: func(t *testing.T, env *testEnv, _ *httptest.ResponseRecorder) {
				if stored(t, env, "ns1", "a") != nil {
					t.Error("still stored")
				}
				want := []string{"admit DELETE ns1/a dryRun=false user=tester", "validate DELETE ns1/a dryRun=false user=tester"}
				if diff := cmp.Diff(want, env.admission.seen()); diff != "" {
					t.Errorf("admission calls (-want +got):\n%s", diff)
				}
			}},
		{name: "finalizers keep it: 200 with deletionTimestamp", seed: []*corev1.ConfigMap{finalized}, method: "DELETE", path: cmAPath,
			wantCode: http.StatusOK, wantBody: []string{`"deletionTimestamp"`}},
		{name: "not deleted with orphanDependents=false: 202", seed: []*corev1.ConfigMap{finalized}, method: "DELETE", path: cmAPath,
			body: `{"orphanDependents":false}`, wantCode: http.StatusAccepted},
		{name: "options from the body", seed: seedA(), method: "DELETE", path: cmAPath,
			body: `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":7,"propagationPolicy":"Foreground"}`, wantCode: http.StatusOK,
			check: func(t *testing.T, env *testEnv, _ *httptest.ResponseRecorder) {
				o := env.store.lastDelete
				if o.GracePeriodSeconds == nil || *o.GracePeriodSeconds != 7 || o.PropagationPolicy == nil || *o.PropagationPolicy != metav1.DeletePropagationForeground {
					t.Errorf("delete options %+v", o)
				}
			}},
		{name: "options from the query", seed: seedA(), method: "DELETE", path: cmAPath + "?gracePeriodSeconds=3&dryRun=All", wantCode: http.StatusOK,
			check: func(t *testing.T, env *testEnv, _ *httptest.ResponseRecorder) {
				o := env.store.lastDelete
				if o.GracePeriodSeconds == nil || *o.GracePeriodSeconds != 3 || len(o.DryRun) != 1 {
					t.Errorf("delete options %+v", o)
				}
			}},
		{name: "precondition failure", seed: seedA(), method: "DELETE", path: cmAPath, body: `{"preconditions":{"uid":"other"}}`,
			wantCode: http.StatusConflict, wantBody: []string{"Precondition failed"}},
		{name: "invalid propagation policy", seed: seedA(), method: "DELETE", path: cmAPath + "?propagationPolicy=Sideways",
			wantCode: http.StatusUnprocessableEntity, wantBody: []string{`DeleteOptions.meta.k8s.io`}},
		{name: "deletecollection by label", seed: []*corev1.ConfigMap{configMap("ns1", "a", nil), configMap("ns1", "b", nil)},
			method: "DELETE", path: cmPath + "?labelSelector=app%3Db", wantCode: http.StatusOK, wantBody: []string{`"kind":"ConfigMapList"`},
			check: func(t *testing.T, env *testEnv, _ *httptest.ResponseRecorder) {
				if stored(t, env, "ns1", "a") == nil || stored(t, env, "ns1", "b") != nil {
					t.Error("deleted the wrong objects")
				}
			}},
	})
}
