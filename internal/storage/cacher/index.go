package cacher

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kapi-dev/kapi/internal/storage"
)

// fieldValue is a field selector's exact requirement, field=value.
type fieldValue struct{ field, value string }

// watcherIndex finds the watchers a change may concern without looking at
// the others, so that a change costs in proportion to the watchers that
// want it (upstream indexes pods by spec.nodeName the same way). Watchers
// are grouped by their key: a namespace's folder, the whole resource, or
// one object. Within a key, a watcher whose field selector requires
// field=value (metadata.name=x, spec.nodeName=node-1, ...) is filed under
// that requirement and only looked at for changes whose object has, or had,
// that value. The dispatcher's lock guards it.
type watcherIndex struct {
	byKey map[string]*keyWatchers
	// fields counts the watchers filed under each field, with the function
	// that reads an object's fields (the watchers' GetAttrs).
	fields map[string]*indexedField
}

type keyWatchers struct {
	any     map[*cacheWatcher]struct{} // no indexed requirement
	byField map[fieldValue]map[*cacheWatcher]struct{}
}

type indexedField struct {
	watchers int
	attrs    storage.AttrFunc
}

func newWatcherIndex() *watcherIndex {
	return &watcherIndex{byKey: make(map[string]*keyWatchers), fields: make(map[string]*indexedField)}
}

// indexRequirement is the requirement a watcher is filed under: the first
// field=value of its field selector. Without a function to read fields the
// predicate selects everything, so nothing is indexed.
func indexRequirement(pred storage.SelectionPredicate) (fieldValue, bool) {
	if pred.GetAttrs == nil || pred.Field == nil || pred.Field.Empty() {
		return fieldValue{}, false
	}
	for _, r := range pred.Field.Requirements() {
		if r.Operator == selection.Equals || r.Operator == selection.DoubleEquals {
			return fieldValue{r.Field, r.Value}, true
		}
	}
	return fieldValue{}, false
}

func (x *watcherIndex) add(w *cacheWatcher) {
	kw := x.byKey[w.key]
	if kw == nil {
		kw = &keyWatchers{any: make(map[*cacheWatcher]struct{}), byField: make(map[fieldValue]map[*cacheWatcher]struct{})}
		x.byKey[w.key] = kw
	}
	fv, ok := indexRequirement(w.pred)
	if !ok {
		kw.any[w] = struct{}{}
		return
	}
	w.indexedBy, w.indexed = fv, true
	set := kw.byField[fv]
	if set == nil {
		set = make(map[*cacheWatcher]struct{})
		kw.byField[fv] = set
	}
	set[w] = struct{}{}
	f := x.fields[fv.field]
	if f == nil {
		f = &indexedField{attrs: w.pred.GetAttrs}
		x.fields[fv.field] = f
	}
	f.watchers++
}

// remove forgets w; removing a watcher twice is harmless.
func (x *watcherIndex) remove(w *cacheWatcher) {
	kw := x.byKey[w.key]
	if kw == nil {
		return
	}
	if !w.indexed {
		delete(kw.any, w)
	} else if set := kw.byField[w.indexedBy]; set != nil {
		if _, ok := set[w]; ok {
			delete(set, w)
			if len(set) == 0 {
				delete(kw.byField, w.indexedBy)
			}
			if f := x.fields[w.indexedBy.field]; f != nil {
				if f.watchers--; f.watchers == 0 {
					delete(x.fields, w.indexedBy.field)
				}
			}
		}
	}
	if len(kw.any) == 0 && len(kw.byField) == 0 {
		delete(x.byKey, w.key)
	}
}

func (x *watcherIndex) clear() {
	clear(x.byKey)
	clear(x.fields)
}

// eventFields are the indexed fields' values of a change's object and of
// its previous state.
type eventFields struct {
	cur, prev fields.Set
}

// fieldsOf reads the indexed fields of ev's objects; false when a
// function fails, and the change then goes to every watcher of its keys.
func (x *watcherIndex) fieldsOf(ev *event) (map[string]eventFields, bool) {
	if len(x.fields) == 0 {
		return nil, true
	}
	out := make(map[string]eventFields, len(x.fields))
	for name, f := range x.fields {
		var ef eventFields
		var err error
		if _, ef.cur, err = f.attrs(ev.obj); err != nil {
			return nil, false
		}
		if ev.prev != nil {
			if _, ef.prev, err = f.attrs(ev.prev); err != nil {
				return nil, false
			}
		}
		out[name] = ef
	}
	return out, true
}

// interested appends to out the watchers ev may concern: those whose key
// covers ev's key and, for the indexed ones, whose requirement ev's object
// meets now or met before the change.
func (x *watcherIndex) interested(ev *event, out []*cacheWatcher) []*cacheWatcher {
	// The fields are read only for a key that has indexed watchers: most
	// changes reach none (a ConfigMap's in a namespace nobody watches by
	// name), and reading them builds a set per object.
	var (
		vals    map[string]eventFields
		indexed bool
		read    bool
	)
	visit := func(key string) {
		kw := x.byKey[key]
		if kw == nil {
			return
		}
		for w := range kw.any {
			if w.coversKey(ev.key) {
				out = append(out, w)
			}
		}
		if len(kw.byField) == 0 {
			return
		}
		if !read {
			vals, indexed = x.fieldsOf(ev)
			read = true
		}
		if !indexed {
			for _, set := range kw.byField {
				for w := range set {
					if w.coversKey(ev.key) {
						out = append(out, w)
					}
				}
			}
			return
		}
		for name, ef := range vals {
			cur := ef.cur[name]
			for w := range kw.byField[fieldValue{name, cur}] {
				if w.coversKey(ev.key) {
					out = append(out, w)
				}
			}
			if ev.prev == nil {
				continue
			}
			if prev := ef.prev[name]; prev != cur {
				for w := range kw.byField[fieldValue{name, prev}] {
					if w.coversKey(ev.key) {
						out = append(out, w)
					}
				}
			}
		}
	}
	// Recursive watchers' keys are the folders above ev's key ("/pods/",
	// "/pods/ns/"); a watcher of one object has the key itself.
	for i := range len(ev.key) {
		if ev.key[i] == '/' {
			visit(ev.key[:i+1])
		}
	}
	visit(ev.key)
	return out
}
