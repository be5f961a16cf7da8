package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestListKubectlManyItems reads a namespace of 1,200 configmaps of 1 KiB
// with kubectl: its default pages of 500 come as streamed Tables and, with
// -o json, as streamed lists, both larger than the gzip threshold; every
// item arrives once, in order.
func TestListKubectlManyItems(t *testing.T) {
	const n = 1200
	k := framework.StartKapi(t)
	cs := k.Clientset()
	createNamespace(t, cs, "many")
	payload := strings.Repeat("x", 1024)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < n; i += 16 {
				_, err := cs.CoreV1().ConfigMaps("many").Create(context.Background(), newConfigMap(fmt.Sprintf("cm-%04d", i), "payload", payload), metav1.CreateOptions{})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	out, err := k.Kubectl(t, "-n", "many", "get", "configmaps")
	if err != nil {
		t.Fatalf("kubectl get: %v\n%s", err, out)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if name := strings.Fields(line)[0]; strings.HasPrefix(name, "cm-") {
			names = append(names, name)
		}
	}
	if len(names) != n || names[0] != "cm-0000" || names[n-1] != fmt.Sprintf("cm-%04d", n-1) {
		t.Fatalf("kubectl get printed %d configmaps (first %v)", len(names), names[:min(3, len(names))])
	}

	out, err = k.Kubectl(t, "-n", "many", "get", "configmaps", "-o", "json")
	if err != nil {
		t.Fatalf("kubectl get -o json: %v", err)
	}
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
			Data     map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, item := range list.Items {
		if strings.HasPrefix(item.Metadata.Name, "cm-") && item.Data["payload"] == payload {
			seen++
		}
	}
	if seen != n {
		t.Errorf("kubectl get -o json: %d of %d configmaps", seen, n)
	}
}
