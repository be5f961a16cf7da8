package controlplane

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// jsonPatchHeapBound is how much the server may allocate for a refused
// doubling patch. Refused at the copy limit (the 3 MiB body limit of
// startServer) it allocates a few tens of MiB; applied, its 17 doublings of
// a 2 KiB map make a 256 MiB document, copied and encoded several times.
const jsonPatchHeapBound = 512 << 20

// A JSON patch may not make the server copy more than a request body may
// hold, nor ask for more than 10000 operations, as upstream. Issue 15,
// defect 4.
func TestJSONPatchLimits(t *testing.T) {
	s := startServer(t, "memory")
	c := newPatchClient(t, s)
	path := "/api/v1/namespaces/" + patchNamespace + "/configmaps/"
	post := func(name string) {
		t.Helper()
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"annotations":{"a":%q}}}`, name, strings.Repeat("x", 2048))
		if err := c.rc.Post().AbsPath(path).Body([]byte(body)).Do(t.Context()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	ops := func(n int, op func(i int) string) string {
		all := make([]string, n)
		for i := range all {
			all[i] = op(i)
		}
		return "[" + strings.Join(all, ",") + "]"
	}
	// Each op copies the annotations into themselves: the document doubles.
	doubling := ops(17, func(i int) string {
		return fmt.Sprintf(`{"op":"copy","from":"/metadata/annotations","path":"/metadata/annotations/c%d"}`, i)
	})
	tooMany := ops(10001, func(int) string { return `{"op":"test","path":"/kind","value":"ConfigMap"}` })
	cases := []struct {
		name    string
		patch   string
		code    int
		reason  metav1.StatusReason
		message string
	}{
		// Upstream's answer to a patch the library refuses: its generic
		// 422, without the library's words.
		{"doubling copies", doubling, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			"the server rejected our request due to an error in our request"},
		{"too many operations", tooMany, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
			"The allowed maximum operations in a JSON patch is 10000, got 10001"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("limits-%d", i)
			post(name)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			resp := c.patch(path+name, types.JSONPatchType, tc.patch, nil)
			runtime.ReadMemStats(&after)
			wantStatusError(t, resp, tc.code, tc.reason, "", tc.message)
			if grown := after.TotalAlloc - before.TotalAlloc; grown > jsonPatchHeapBound {
				t.Errorf("the request allocated %d MiB, more than %d MiB", grown>>20, jsonPatchHeapBound>>20)
			}
		})
	}
}
