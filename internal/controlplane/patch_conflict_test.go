package controlplane

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// testPatchResourceVersion: a patch naming a resourceVersion is applied
// only to that version; the server does not retry it.
func testPatchResourceVersion(t *testing.T, c *patchClient) {
	c.create(t, "configmap", "versioned")
	path := patchObjectPath(t, "ConfigMap", "versioned", "")
	first := resourceVersionOf(t, c.get(path))
	resp := c.patch(path, mergePatch, `{"data":{"step":"1"}}`, nil)
	if resp.err != nil {
		t.Fatal(resp.err)
	}
	second := resourceVersionOf(t, resp)

	tests := []struct {
		name            string
		patchType       types.PatchType
		resourceVersion string
		code            int
	}{
		{"merge current", mergePatch, second, http.StatusOK},
		{"merge stale", mergePatch, first, http.StatusConflict},
		{"strategic stale", strategicPatch, first, http.StatusConflict},
		{"json stale", jsonPatch, first, http.StatusConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The current version moves with every success: read it
			// again when the case wants it.
			rv := tc.resourceVersion
			if tc.code == http.StatusOK {
				rv = resourceVersionOf(t, c.get(path))
			}
			body := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"data":{"step":%q}}`, rv, tc.name)
			if tc.patchType == jsonPatch {
				body = fmt.Sprintf(`[{"op":"replace","path":"/metadata/resourceVersion","value":%q},{"op":"add","path":"/data/step","value":%q}]`, rv, tc.name)
			}
			resp := c.patch(path, tc.patchType, body, nil)
			if tc.code == http.StatusOK {
				if resp.code != http.StatusOK {
					t.Fatalf("code = %d, want 200: %v", resp.code, resp.err)
				}
				return
			}
			wantStatusError(t, resp, tc.code, metav1.StatusReasonConflict, "",
				`Operation cannot be fulfilled on configmaps "versioned": the object has been modified; please apply your changes to the latest version and try again`)
		})
	}
}

// testPatchConcurrent: patches without a resourceVersion are retried by
// the server on conflict, so concurrent patches of one object all land.
func testPatchConcurrent(t *testing.T, c *patchClient) {
	const writers = 20
	tests := []struct {
		patchType types.PatchType
		body      func(i int) string
	}{
		{mergePatch, func(i int) string { return fmt.Sprintf(`{"metadata":{"labels":{"writer-%d":"x"}}}`, i) }},
		{strategicPatch, func(i int) string { return fmt.Sprintf(`{"metadata":{"labels":{"writer-%d":"x"}}}`, i) }},
		{jsonPatch, func(i int) string {
			return fmt.Sprintf(`[{"op":"add","path":"/metadata/labels/writer-%d","value":"x"}]`, i)
		}},
	}
	for _, tc := range tests {
		t.Run(string(tc.patchType), func(t *testing.T) {
			name := patchObjectName("concurrent " + string(tc.patchType))
			c.create(t, "configmap", name)
			path := patchObjectPath(t, "ConfigMap", name, "")
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() {
					if resp := c.patch(path, tc.patchType, tc.body(i), nil); resp.err != nil {
						errs[i] = fmt.Errorf("writer %d: code %d: %w", i, resp.code, resp.err)
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			labels := objectMeta(t, c.get(path)).Labels
			for i := range writers {
				if labels[fmt.Sprintf("writer-%d", i)] != "x" {
					t.Errorf("label writer-%d lost; labels: %v", i, labels)
				}
			}
			if want := writers + 2; len(labels) != want { // app and tier of the testdata
				t.Errorf("%d labels, want %d: %v", len(labels), want, labels)
			}
		})
	}
}

func objectMeta(tb testing.TB, resp patchResponse) metav1.ObjectMeta {
	tb.Helper()
	if resp.err != nil {
		tb.Fatalf("code %d: %v", resp.code, resp.err)
	}
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(resp.body, &obj); err != nil {
		tb.Fatal(err)
	}
	return obj.Metadata
}

func resourceVersionOf(tb testing.TB, resp patchResponse) string {
	tb.Helper()
	rv := objectMeta(tb, resp).ResourceVersion
	if rv == "" {
		tb.Fatalf("no resourceVersion in %s", resp.body)
	}
	return rv
}
