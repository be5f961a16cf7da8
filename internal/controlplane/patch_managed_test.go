package controlplane

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testPatchScaleManagedFields: a write through the scale subresource is
// recorded on the parent as upstream does (its ScaleHandler): an Update
// entry of the writer with subresource "scale" and the parent's version,
// owning spec.replicas, which the earlier owner loses. The Scale answered
// has no managedFields.
func testPatchScaleManagedFields(t *testing.T, c *patchClient) {
	c.create(t, "deployment", "scaled")
	resp := c.patch(patchObjectPath(t, "Deployment", "scaled", "scale"), mergePatch,
		`{"spec":{"replicas":4}}`, url.Values{"fieldManager": {"scaler"}})
	if resp.err != nil {
		t.Fatalf("patching scale: %v", resp.err)
	}
	t.Run("parent", func(t *testing.T) {
		entries := objectMeta(t, c.get(patchObjectPath(t, "Deployment", "scaled", ""))).ManagedFields
		if problems := scaleEntryProblems(entries); len(problems) > 0 {
			t.Fatal(strings.Join(problems, "\n"))
		}
	})
	t.Run("answer", func(t *testing.T) {
		// Upstream builds the Scale from the parent's name, namespace,
		// uid, resourceVersion and creationTimestamp only.
		if mf := objectMeta(t, resp).ManagedFields; len(mf) > 0 {
			t.Errorf("the Scale answered has %d managedFields entries, want none", len(mf))
		}
	})
}

func scaleEntryProblems(entries []metav1.ManagedFieldsEntry) []string {
	var problems []string
	found := false
	for _, e := range entries {
		fields := "{}"
		if e.FieldsV1 != nil {
			fields = string(e.FieldsV1.Raw)
		}
		owns := ownsReplicas(fields)
		switch {
		case e.Manager == "scaler":
			found = true
			if e.Operation != metav1.ManagedFieldsOperationUpdate || e.Subresource != "scale" || e.APIVersion != "apps/v1" {
				problems = append(problems, fmt.Sprintf("scaler entry: operation %q, subresource %q, apiVersion %q; want Update, scale, apps/v1",
					e.Operation, e.Subresource, e.APIVersion))
			}
			if fields != `{"f:spec":{"f:replicas":{}}}` {
				problems = append(problems, fmt.Sprintf("scaler owns %s, want spec.replicas only", fields))
			}
		case owns:
			problems = append(problems, fmt.Sprintf("%s (%s) still owns spec.replicas", e.Manager, e.Operation))
		}
	}
	if !found {
		problems = append(problems, fmt.Sprintf("no entry of the manager scaler in %d entries", len(entries)))
	}
	return problems
}

func ownsReplicas(fieldsV1 string) bool {
	var f struct {
		Spec map[string]json.RawMessage `json:"f:spec"`
	}
	_ = json.Unmarshal([]byte(fieldsV1), &f)
	_, ok := f.Spec["f:replicas"]
	return ok
}
