package server

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// renamer is a fake webhook: v1alpha1 spec.colour is v1 spec.color.
type renamer struct {
	// batches counts calls converting more than one object: a list
	// converted in one request. The test's open watch converts its events
	// one by one, concurrently, so only these tell a list's calls apart.
	batches atomic.Int32
	fail    atomic.Bool
}

func (r *renamer) NewConverter(*apiextv1.CustomResourceDefinition) (Converter, error) { return r, nil }

func (r *renamer) Convert(_ context.Context, objs []*unstructured.Unstructured, gv schema.GroupVersion) ([]*unstructured.Unstructured, error) {
	if len(objs) > 1 {
		r.batches.Add(1)
	}
	if r.fail.Load() {
		return nil, errors.New("conversion webhook for example.com/v1, Kind=Widget failed: boom")
	}
	from, to := "color", "colour"
	if gv.Version == "v1" {
		from, to = to, from
	}
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		u := o.DeepCopy()
		if v, ok, _ := unstructured.NestedFieldCopy(u.Object, "spec", from); ok {
			unstructured.RemoveNestedField(u.Object, "spec", from)
			_ = unstructured.SetNestedField(u.Object, v, "spec", to)
		}
		u.SetAPIVersion(gv.String())
		out[i] = u
	}
	return out, nil
}

func webhookCRD(t testing.TB) *apiextv1.CustomResourceDefinition {
	c := realWidgetCRD(t)
	c.Spec.Conversion = &apiextv1.CustomResourceConversion{Strategy: apiextv1.WebhookConverter}
	return c
}

func TestWebhookConversion(t *testing.T) {
	r := &renamer{}
	e := newRealEnv(t, envOptions{converters: r}, webhookCRD(t))
	alpha, v1 := "/apis/example.com/v1alpha1/namespaces/ns1/widgets", "/apis/example.com/v1/namespaces/ns1/widgets"

	watch, err := http.Get(e.server.URL + alpha + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()

	steps := []struct {
		name, method, path, body string
		code                     int
		contains, lacks          []string
	}{
		{"create in v1alpha1", "POST", alpha, widget("v1alpha1", "w1", `{"size":1,"colour":"blue"}`), 201, []string{`"colour":"blue"`, `"apiVersion":"example.com/v1alpha1"`}, []string{`"color"`}},
		{"read in v1", "GET", v1 + "/w1", "", 200, []string{`"color":"blue"`, `"apiVersion":"example.com/v1"`}, []string{`"colour"`}},
		{"create in v1", "POST", v1, widget("v1", "w2", `{"size":1}`), 201, []string{`"color":"red"`}, nil},
		{"list in v1alpha1", "GET", alpha, "", 200, []string{`"colour":"blue"`, `"colour":"red"`}, []string{`"color"`}},
		{"merge patch in v1alpha1 keeps generation", "PATCH", alpha + "/w1", `{"metadata":{"labels":{"a":"b"}}}`, 200, []string{`"generation":1`, `"colour":"blue"`}, nil},
		{"validated with the request version's schema", "POST", alpha, widget("v1alpha1", "bad", `{"size":0}`), 422, []string{"spec.size"}, nil},
	}
	for _, s := range steps {
		ct := "application/json"
		if s.method == "PATCH" {
			ct = "application/merge-patch+json"
		}
		before := r.batches.Load()
		code, b := e.do(t, s.method, s.path, s.body, "Content-Type", ct)
		if code != s.code {
			t.Fatalf("%s: code %d, want %d: %s", s.name, code, s.code, b)
		}
		for _, c := range s.contains {
			if !strings.Contains(b, c) {
				t.Errorf("%s: body lacks %s: %s", s.name, c, b)
			}
		}
		for _, c := range s.lacks {
			if strings.Contains(b, c) {
				t.Errorf("%s: body has %s: %s", s.name, c, b)
			}
		}
		if s.name == "list in v1alpha1" && r.batches.Load()-before != 1 {
			t.Errorf("list: %d batched conversions, want one for the whole list", r.batches.Load()-before)
		}
	}
	line, err := bufio.NewReader(watch.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, `"colour":"blue"`) || !strings.Contains(line, `"apiVersion":"example.com/v1alpha1"`) {
		t.Errorf("watch event not converted: %s", line)
	}

	r.fail.Store(true)
	for _, req := range []struct{ method, path, body string }{
		{"GET", alpha + "/w1", ""},
		{"GET", alpha, ""},
		{"POST", alpha, widget("v1alpha1", "w3", `{"size":1}`)},
	} {
		code, b := e.do(t, req.method, req.path, req.body)
		if code != 500 || !strings.Contains(b, "conversion webhook for example.com/v1, Kind=Widget failed: boom") || !strings.Contains(b, `"reason":"InternalError"`) {
			t.Errorf("%s %s with a failing webhook: %d %s", req.method, req.path, code, b)
		}
	}
}

func TestWebhookConversionWithoutFactory(t *testing.T) {
	e := newRealEnv(t, envOptions{}, webhookCRD(t))
	if code, b := e.do(t, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", widget("v1", "w1", `{"size":1}`)); code != 201 {
		t.Fatalf("create in the storage version: %d %s", code, b)
	}
	code, b := e.do(t, "GET", "/apis/example.com/v1alpha1/namespaces/ns1/widgets/w1", "")
	if code != 500 || !strings.Contains(b, errWebhookConversion.Error()) {
		t.Errorf("read in another version: %d %s", code, b)
	}
}

// A default added to the storage version's schema later shows on objects
// stored before it, on GET, LIST and WATCH.
func TestDefaultingOnRead(t *testing.T) {
	crd := realWidgetCRD(t)
	e := newRealEnv(t, envOptions{}, crd)
	base := "/apis/example.com/v1/namespaces/ns1/widgets"
	if code, b := e.do(t, "POST", base, widget("v1", "w1", `{"size":1}`)); code != 201 || strings.Contains(b, "shape") {
		t.Fatalf("create: %d %s", code, b)
	}
	crd = crd.DeepCopy()
	crd.ResourceVersion = "2"
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["shape"] = apiextv1.JSONSchemaProps{Type: "string", Default: &apiextv1.JSON{Raw: []byte(`"round"`)}}
	e.src.set(crd)
	if err := e.h.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{base + "/w1", base, base + "?watch=true&timeoutSeconds=1"} {
		resp, err := http.Get(e.server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		resp.Body.Close()
		if !strings.Contains(line, `"shape":"round"`) {
			t.Errorf("GET %s lacks the new default: %s", path, line)
		}
	}
}
