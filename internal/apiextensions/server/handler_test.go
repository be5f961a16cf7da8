package server

import (
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestCRUDNamespaced(t *testing.T) {
	e := newTestEnv(t, widgetCRD(apiextv1.NamespaceScoped))
	base := "/apis/example.com/v1/namespaces/ns1/widgets"
	steps := []struct {
		name, method, path, body string
		headers                  []string
		code                     int
		contains                 []string
	}{
		{"create", "POST", base, widget("v1", "w1", `{"size":2,"bogus":1}`), nil, 201, []string{`"color":"red"`, `"generation":1`, `"namespace":"ns1"`}},
		{"pruned", "GET", base + "/w1", "", nil, 200, []string{`"size":2`}},
		{"list", "GET", base, "", nil, 200, []string{`"kind":"WidgetList"`, `"name":"w1"`}},
		{"list all namespaces", "GET", "/apis/example.com/v1/widgets", "", nil, 200, []string{`"name":"w1"`}},
		{"merge patch", "PATCH", base + "/w1", `{"spec":{"size":3}}`, []string{"Content-Type", "application/merge-patch+json"}, 200, []string{`"size":3`, `"generation":2`}},
		{"json patch", "PATCH", base + "/w1", `[{"op":"replace","path":"/spec/color","value":"blue"}]`, []string{"Content-Type", "application/json-patch+json"}, 200, []string{`"color":"blue"`}},
		{"strategic refused", "PATCH", base + "/w1", `{}`, []string{"Content-Type", "application/strategic-merge-patch+json"}, 415, nil},
		{"invalid", "POST", base, widget("v1", "bad", `{"size":0}`), nil, 422, []string{`Widget.example.com \"bad\" is invalid: spec.size: Invalid value: 0`}},
		{"status dropped on create", "POST", base, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"size":1},"status":{"replicas":5}}`, nil, 201, nil},
		{"status write", "PATCH", base + "/w2/status", `{"spec":{"size":9},"status":{"replicas":4}}`, []string{"Content-Type", "application/merge-patch+json"}, 200, []string{`"replicas":4`, `"size":1`}},
		{"main write keeps status", "PATCH", base + "/w2", `{"status":{"replicas":7}}`, []string{"Content-Type", "application/merge-patch+json"}, 200, []string{`"replicas":4`}},
		{"unconditional put refused", "PUT", base + "/w2", widget("v1", "w2", `{"size":1}`), nil, 422, []string{"must be specified for an update"}},
		{"field selector", "GET", base + "?fieldSelector=spec.color%3Dblue", "", nil, 200, []string{`"name":"w1"`}},
		{"unknown field selector", "GET", base + "?fieldSelector=spec.size%3D1", "", nil, 400, []string{"field label not supported: spec.size"}},
		{"table", "GET", base, "", []string{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}, 200, []string{`"name":"Color"`, `"name":"Age"`, `"blue"`}},
		{"table with objects", "GET", base + "?includeObject=Object", "", []string{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}, 200, []string{`"kind":"Widget"`}},
		{"scale", "GET", base + "/w2/scale", "", nil, 200, []string{`"kind":"Scale"`, `"replicas":4`}},
		{"read as v1alpha1", "GET", "/apis/example.com/v1alpha1/namespaces/ns1/widgets/w1", "", nil, 200, []string{`"apiVersion":"example.com/v1alpha1"`}},
		{"create as v1alpha1", "POST", "/apis/example.com/v1alpha1/namespaces/ns1/widgets", widget("v1alpha1", "w3", `{"size":1}`), nil, 201, []string{`"apiVersion":"example.com/v1alpha1"`}},
		{"read back as v1", "GET", base + "/w3", "", nil, 200, []string{`"apiVersion":"example.com/v1"`}},
		{"list as v1alpha1", "GET", "/apis/example.com/v1alpha1/namespaces/ns1/widgets", "", nil, 200, []string{`{"apiVersion":"example.com/v1alpha1","items":[{"apiVersion":"example.com/v1alpha1"`, `"kind":"WidgetList"`}},
		{"delete", "DELETE", base + "/w1", "", nil, 200, nil},
		{"gone", "GET", base + "/w1", "", nil, 404, []string{`widgets.example.com \"w1\" not found`}},
		{"unknown version", "GET", "/apis/example.com/v2/namespaces/ns1/widgets", "", nil, 404, nil},
	}
	for _, s := range steps {
		code, body := e.do(t, s.method, s.path, s.body, s.headers...)
		if code != s.code {
			t.Fatalf("%s: code %d, want %d: %s", s.name, code, s.code, body)
		}
		for _, c := range s.contains {
			if !strings.Contains(body, c) {
				t.Errorf("%s: body lacks %s: %s", s.name, c, body)
			}
		}
		if s.name == "pruned" && strings.Contains(body, "bogus") {
			t.Errorf("unknown field kept: %s", body)
		}
		if s.name == "status dropped on create" && strings.Contains(body, `"replicas":5`) {
			t.Errorf("status kept on create: %s", body)
		}
	}
}

func TestClusterScopedAndLifecycle(t *testing.T) {
	e := newTestEnv(t)
	path := "/apis/example.com/v1/gadgets"
	body := `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"size":1}}`
	if code, b := e.do(t, "POST", path, body); code != 404 {
		t.Fatalf("before the CRD: %d %s", code, b)
	}
	crd := gadgetCRD()
	crd.Status.Conditions[0].Status = apiextv1.ConditionFalse
	e.src.set(crd)
	if err := e.h.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, _ := e.do(t, "POST", path, body); code != 404 {
		t.Fatalf("not established but served: %d", code)
	}
	crd = gadgetCRD()
	crd.ResourceVersion = "2"
	e.src.set(crd)
	if err := e.h.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, b := e.do(t, "POST", path, body); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	if code, _ := e.do(t, "GET", "/apis/example.com/v1/namespaces/x/gadgets/g1", ""); code != 404 {
		t.Errorf("namespaced path of a cluster-scoped resource: %d", code)
	}
	if code, b := e.do(t, "GET", path+"/g1", ""); code != 200 || !strings.Contains(b, `"color":"red"`) {
		t.Errorf("get: %d %s", code, b)
	}
	if e.h.Storage("example.com", "gadgets") == nil {
		t.Error("Storage of a served CRD is nil")
	}
	e.src.remove(crd.Name)
	if err := e.h.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, _ := e.do(t, "GET", path+"/g1", ""); code != 404 {
		t.Errorf("deleted CRD still served: %d", code)
	}
	if code, _ := e.do(t, "GET", "/apis/example.com/v1", ""); code != 404 {
		t.Errorf("APIResourceList of a group version no longer served: %d", code)
	}
	if e.h.Storage("example.com", "gadgets") != nil {
		t.Error("Storage of a deleted CRD is not nil")
	}
}
