package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// badInput sends malformed and mismatched requests and checks the Status
// each one gets, and that none of them stored anything.
func badInput(t *testing.T, k *framework.Kapi) {
	cs := k.Clientset()
	createNamespace(t, cs, "bad")
	client, err := rest.HTTPClientFor(k.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	base := k.RESTConfig().Host + "/api/v1/namespaces/bad/configmaps"
	huge := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"data":{"a":"` + strings.Repeat("x", 4<<20) + `"}}`

	tests := []struct {
		name       string
		method     string
		url        string
		body       string
		wantCode   int
		wantReason metav1.StatusReason
		wantInMsg  string
	}{
		{"malformed json", "POST", base, `{"kind":`, 400, metav1.StatusReasonBadRequest, ""},
		{"wrong kind", "POST", base, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`, 400, metav1.StatusReasonBadRequest, "Secret"},
		{"name mismatch", "PUT", base + "/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`, 400, metav1.StatusReasonBadRequest, "does not match the name on the URL"},
		{"invalid name", "POST", base, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`, 422, metav1.StatusReasonInvalid, "metadata.name"},
		{"too large", "POST", base, huge, 413, metav1.StatusReasonRequestEntityTooLarge, ""},
		{"unknown resource", "GET", k.RESTConfig().Host + "/api/v1/namespaces/bad/foos", "", 404, metav1.StatusReasonNotFound, "the server could not find the requested resource"},
		{"wrong method", "PUT", base, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`, 405, metav1.StatusReasonMethodNotAllowed, ""},
		{"list at a resourceVersion that is not a number", "GET", base + "?resourceVersion=abc", "", 400, metav1.StatusReasonBadRequest,
			`invalid resource version: resourceVersion: Invalid value: "abc"`},
		{"watch from a resourceVersion that is not a number", "GET", base + "?watch=1&resourceVersion=abc", "", 400, metav1.StatusReasonBadRequest, "invalid resource version"},
		{"get at a resourceVersion that is not a number", "GET", base + "/a?resourceVersion=-1", "", 400, metav1.StatusReasonBadRequest, "invalid resource version"},
		{"garbage continue token", "GET", base + "?limit=1&continue=garbage", "", 400, metav1.StatusReasonBadRequest, "invalid continue token: continue key is not valid"},
		// Upstream answers 422 here: ListOptions validation, not storage.
		{"resourceVersionMatch without resourceVersion", "GET", base + "?resourceVersionMatch=NotOlderThan", "", 422, metav1.StatusReasonInvalid,
			"resourceVersionMatch is forbidden unless resourceVersion is provided"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, tt.url, bytes.NewBufferString(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("code %d, want %d; body %s", resp.StatusCode, tt.wantCode, body)
			}
			var status metav1.Status
			if err := json.Unmarshal(body, &status); err != nil || status.Kind != "Status" {
				t.Fatalf("body is not a Status: %v %s", err, body)
			}
			if status.Code != int32(tt.wantCode) || status.Reason != tt.wantReason || status.Status != metav1.StatusFailure {
				t.Errorf("status code=%d reason=%q status=%q; want %d %q Failure", status.Code, status.Reason, status.Status, tt.wantCode, tt.wantReason)
			}
			if !strings.Contains(status.Message, tt.wantInMsg) {
				t.Errorf("message %q does not contain %q", status.Message, tt.wantInMsg)
			}
		})
	}

	list, err := cs.CoreV1().ConfigMaps("bad").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := ownConfigMaps(list.Items, configMapName); n != 0 {
		t.Fatalf("bad requests stored %d configmaps", n)
	}
}
