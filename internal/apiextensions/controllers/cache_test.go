package controllers

import (
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestCacheKeepsDeletedCRDsOut: the write that removes a CRD's last
// finalizer returns the object after its Deleted event may have been
// handled; putting that result must not bring the CRD back, or its names
// stay taken and a CRD waiting for them is never established.
func TestCacheKeepsDeletedCRDsOut(t *testing.T) {
	crd := func(uid types.UID, rv string) *apiextv1.CustomResourceDefinition {
		return &apiextv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", UID: uid, ResourceVersion: rv},
			Spec:       apiextv1.CustomResourceDefinitionSpec{Group: "example.com"},
		}
	}
	tests := []struct {
		name  string
		steps func(c *cache)
		want  []types.UID
	}{
		{"own write after the deleted event", func(c *cache) {
			c.put(crd("a", "5"))
			c.remove(crd("a", "6"))
			c.put(crd("a", "6"))
		}, nil},
		{"recreated under the same name", func(c *cache) {
			c.put(crd("a", "5"))
			c.remove(crd("a", "6"))
			c.put(crd("b", "7"))
		}, []types.UID{"b"}},
		{"late deleted event of the old uid", func(c *cache) {
			c.put(crd("b", "7"))
			c.remove(crd("a", "6"))
		}, []types.UID{"b"}},
		{"gone from a relist", func(c *cache) {
			c.put(crd("a", "5"))
			c.replace(nil)
			c.put(crd("a", "6"))
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache()
			tt.steps(c)
			var got []types.UID
			for _, crd := range c.group("example.com") {
				got = append(got, crd.UID)
			}
			if len(got) != len(tt.want) || (len(got) == 1 && got[0] != tt.want[0]) {
				t.Errorf("cached uids = %v, want %v", got, tt.want)
			}
		})
	}
}
