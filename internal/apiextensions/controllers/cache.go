package controllers

import (
	"strconv"
	"sync"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/types"
)

// cache is the controllers' view of every CRD, fed by the watch and by the
// controllers' own writes, so that a name accepted a moment ago is seen as
// taken before its watch event arrives. Objects in it are never mutated.
type cache struct {
	mu   sync.Mutex
	crds map[string]*apiextv1.CustomResourceDefinition
	// deleted holds the uids whose deletion was observed: a worker's own
	// write that removed the last finalizer returns the object after its
	// Deleted event may already have been handled, and must not bring it
	// back (its names would stay taken forever).
	deleted map[types.UID]bool
}

func newCache() *cache {
	return &cache{crds: map[string]*apiextv1.CustomResourceDefinition{}, deleted: map[types.UID]bool{}}
}

// put stores crd unless the cache already holds a newer version of it (an
// own write seen before the watch event of an older one).
func (c *cache) put(crd *apiextv1.CustomResourceDefinition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deleted[crd.UID] {
		return
	}
	if old, ok := c.crds[crd.Name]; ok && old.UID == crd.UID && olderThan(crd.ResourceVersion, old.ResourceVersion) {
		return
	}
	c.crds[crd.Name] = crd
}

// remove forgets a deleted CRD and remembers its uid as deleted.
func (c *cache) remove(crd *apiextv1.CustomResourceDefinition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if crd.UID != "" {
		c.deleted[crd.UID] = true
	}
	if cur, ok := c.crds[crd.Name]; ok && (crd.UID == "" || cur.UID == crd.UID) {
		delete(c.crds, crd.Name)
	}
}

// replace swaps in a fresh list and returns the names that disappeared.
func (c *cache) replace(crds []*apiextv1.CustomResourceDefinition) []*apiextv1.CustomResourceDefinition {
	fresh := make(map[string]*apiextv1.CustomResourceDefinition, len(crds))
	for _, crd := range crds {
		fresh[crd.Name] = crd
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var gone []*apiextv1.CustomResourceDefinition
	for name, crd := range c.crds {
		if _, ok := fresh[name]; !ok {
			gone = append(gone, crd)
			c.deleted[crd.UID] = true
		}
	}
	c.crds = fresh
	return gone
}

// group returns the CRDs of one API group.
func (c *cache) group(group string) []*apiextv1.CustomResourceDefinition {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*apiextv1.CustomResourceDefinition
	for _, crd := range c.crds {
		if crd.Spec.Group == group {
			out = append(out, crd)
		}
	}
	return out
}

// olderThan compares resource versions when both are numbers (kapi's
// storage hands out numbers); anything else counts as not older.
func olderThan(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x < y
}
