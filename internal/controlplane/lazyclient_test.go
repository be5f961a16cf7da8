package controlplane

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// TestLazyClientset: the group clients a caller asks for reach the server
// with the config's user agent and content type, each built once, and
// concurrent first uses are safe.
func TestLazyClientset(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("User-Agent") + " " + r.Header.Get("Accept")
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, UserAgent: "kapi/test"}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := newLazyClientset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			_, _ = cs.AppsV1().Deployments("ns").Get(context.Background(), "d", metav1.GetOptions{})
			_, _ = cs.CoreV1().Pods("ns").Get(context.Background(), "p", metav1.GetOptions{})
		})
	}
	wg.Wait()
	if cs.AppsV1() != cs.AppsV1() {
		t.Error("AppsV1 built twice")
	}
	for _, path := range []string{"/apis/apps/v1/namespaces/ns/deployments/d", "/api/v1/namespaces/ns/pods/p"} {
		if got, want := seen[path], "kapi/test application/vnd.kubernetes.protobuf, */*"; got != want {
			t.Errorf("%s: user agent and accept %q, want %q", path, got, want)
		}
	}
	if cs.batchV1.client != nil {
		t.Error("a group client nobody asked for was built")
	}
}
