package server

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestWatchAndDiscovery(t *testing.T) {
	e := newTestEnv(t, widgetCRD(apiextv1.NamespaceScoped), gadgetCRD())
	resp, err := http.Get(e.server.URL + "/apis/example.com/v1alpha1/namespaces/ns1/widgets?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	if code, b := e.do(t, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", widget("v1", "w1", `{"size":1}`)); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"type":"ADDED"`, `"apiVersion":"example.com/v1alpha1"`, `"name":"w1"`} {
		if !strings.Contains(line, want) {
			t.Errorf("event lacks %s: %s", want, line)
		}
	}

	_, disc := e.do(t, "GET", "/apis/example.com/v1", "")
	for _, want := range []string{`"name":"widgets"`, `"name":"gadgets"`, `"name":"widgets/status"`, `"name":"widgets/scale"`, `"shortNames":["wd"]`, `"categories":["all"]`} {
		if !strings.Contains(disc, want) {
			t.Errorf("discovery lacks %s: %s", want, disc)
		}
	}
	e.src.remove("widgets.example.com")
	e.src.remove("gadgets.example.com")
	if err := e.h.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if disc := httpGet(t, e.disc, "/apis"); strings.Contains(disc, "example.com") {
		t.Errorf("group still in discovery after its CRDs went: %s", disc)
	}
}

func httpGet(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := newRecorder()
	req, _ := http.NewRequest("GET", path, nil)
	h.ServeHTTP(rec, req)
	return rec.Body.String()
}
