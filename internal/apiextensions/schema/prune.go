package schema

import (
	"sort"
	"strconv"
	"strings"
)

// typeMetaFields are kept at every resource root, schema or not.
var typeMetaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// objectMetaFields are the JSON fields of metav1.ObjectMeta; anything else
// under a resource's metadata is dropped like an unknown field.
var objectMetaFields = map[string]bool{
	"name": true, "generateName": true, "namespace": true, "selfLink": true,
	"uid": true, "resourceVersion": true, "generation": true,
	"creationTimestamp": true, "deletionTimestamp": true,
	"deletionGracePeriodSeconds": true, "labels": true, "annotations": true,
	"ownerReferences": true, "finalizers": true, "managedFields": true,
}

// Prune removes the fields of obj the schema does not specify, honouring
// x-kubernetes-preserve-unknown-fields and x-kubernetes-embedded-resource.
// With isResourceRoot, apiVersion, kind and metadata at the top are kept
// and metadata is cut down to ObjectMeta's fields. It returns the sorted
// paths of what it removed, upstream style ("spec.foo", "spec.list[0].bar",
// "metadata.foo"), ready for `unknown field "spec.foo"` warnings.
func Prune(obj map[string]any, s *Structural, isResourceRoot bool) []string {
	if isResourceRoot {
		root := Structural{}
		if s != nil {
			root = *s
		}
		root.XEmbeddedResource = true
		s = &root
	}
	p := pruner{}
	p.prune(obj, s, false)
	sort.Strings(p.removed)
	return p.removed
}

// pruner tracks the path of the value being visited.
type pruner struct {
	path    []string
	removed []string
}

func (p *pruner) push(key string) {
	if len(p.path) > 0 {
		key = "." + key
	}
	p.path = append(p.path, key)
}

func (p *pruner) pushIndex(i int) { p.path = append(p.path, "["+strconv.Itoa(i)+"]") }

func (p *pruner) pop() { p.path = p.path[:len(p.path)-1] }

func (p *pruner) record(key string) {
	p.push(key)
	p.removed = append(p.removed, strings.Join(p.path, ""))
	p.pop()
}

// prune drops unknown fields below x. Under
// x-kubernetes-preserve-unknown-fields (inherited by array items) unknown
// fields are kept, though specified children are still pruned by their own
// schemas. A nil s prunes every object field below x.
func (p *pruner) prune(x any, s *Structural, preserve bool) {
	preserve = preserve || (s != nil && s.XPreserveUnknownFields)
	if s == nil && preserve {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		embedded := s != nil && s.XEmbeddedResource
		if embedded {
			p.pruneMetadata(x)
		}
		for k, v := range x {
			if embedded && typeMetaFields[k] {
				continue
			}
			sub, known := childSchema(s, k)
			if !known {
				if preserve {
					continue
				}
				// Top-level type meta is not reported: the caller's root
				// handling owns it.
				if !typeMetaFields[k] || len(p.path) > 0 {
					p.record(k)
				}
				delete(x, k)
				continue
			}
			p.push(k)
			p.prune(v, sub, false)
			p.pop()
		}
	case []any:
		var items *Structural
		if s != nil {
			items = s.Items
		}
		for i, v := range x {
			p.pushIndex(i)
			p.prune(v, items, preserve)
			p.pop()
		}
	}
}

// childSchema finds the schema of field k of an object with schema s;
// known is false when the schema does not specify the field at all.
func childSchema(s *Structural, k string) (sub *Structural, known bool) {
	if s == nil {
		return nil, false
	}
	if prop, ok := s.Properties[k]; ok {
		return prop, true
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Structural, true
	}
	return nil, false
}

// pruneMetadata keeps only ObjectMeta's fields in an embedded resource's
// metadata; the server owns that schema, not the CRD.
func (p *pruner) pruneMetadata(x map[string]any) {
	md, ok := x["metadata"].(map[string]any)
	if !ok {
		return
	}
	p.push("metadata")
	for k := range md {
		if !objectMetaFields[k] {
			p.record(k)
			delete(md, k)
		}
	}
	p.pop()
}
