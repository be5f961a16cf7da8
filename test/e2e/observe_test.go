package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestStorageHealthAndMetrics checks the etcd health checks on /livez and
// /readyz and the storage metrics on /metrics, named as kube-apiserver
// names them.
func TestStorageHealthAndMetrics(t *testing.T) {
	k := framework.StartKapi(t)
	cs := k.Clientset()
	createNamespace(t, cs, "observed")
	if _, err := cs.CoreV1().ConfigMaps("observed").Create(context.Background(), newConfigMap("a", "k", "v"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(k.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) string {
		t.Helper()
		resp, err := client.Get(k.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return string(body)
	}
	for path, wants := range map[string][]string{
		"/livez?verbose":   {"[+]etcd ok"},
		"/healthz?verbose": {"[+]etcd ok"},
		"/readyz?verbose":  {"[+]etcd ok", "[+]etcd-readiness ok", "[+]poststarthook/storage-object-count-tracker-hook ok"},
		"/readyz/etcd":     {"ok"},
		"/metrics": {
			`etcd_request_duration_seconds_bucket{group="",operation="create",resource="configmaps"`,
			`etcd_requests_total{group="",operation="create",resource="configmaps"}`,
			`apiserver_storage_objects{resource="namespaces"}`,
			"go_goroutines",
		},
	} {
		// The object counts come shortly after the server is ready, as
		// upstream's: /metrics is read again until they are in.
		deadline := time.Now().Add(10 * time.Second)
		body := get(path)
		for !containsAllOf(body, wants) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			body = get(path)
		}
		for _, want := range wants {
			if !strings.Contains(body, want) {
				t.Errorf("GET %s lacks %q:\n%s", path, want, body)
			}
		}
	}
}

// TestListsServedFromWatchCache: lists at resourceVersion=0 and consistent
// lists of a namespace come from the watch cache, so etcd sees no range
// read of configmaps for them (etcd_requests_total stays put).
func TestListsServedFromWatchCache(t *testing.T) {
	k := framework.StartKapi(t)
	cs := k.Clientset()
	createNamespace(t, cs, "cached")
	for i := range 20 {
		if _, err := cs.CoreV1().ConfigMaps("cached").Create(context.Background(), newConfigMap(fmt.Sprintf("cm-%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	client, err := rest.HTTPClientFor(k.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	rangeReads := func() string {
		t.Helper()
		resp, err := client.Get(k.URL() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for line := range strings.SplitSeq(string(body), "\n") {
			if strings.HasPrefix(line, `etcd_requests_total{group="",operation="list",resource="configmaps"}`) {
				return line
			}
		}
		return "none"
	}
	before := rangeReads()
	for _, rv := range []string{"0", ""} {
		for range 5 {
			list, err := cs.CoreV1().ConfigMaps("cached").List(context.Background(), metav1.ListOptions{ResourceVersion: rv})
			if err != nil || ownConfigMaps(list.Items, configMapName) != 20 {
				t.Fatalf("list at %q: %v (%d items)", rv, err, len(list.Items))
			}
		}
	}
	if after := rangeReads(); after != before {
		t.Errorf("lists read etcd: %s before, %s after", before, after)
	}
}

func containsAllOf(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
