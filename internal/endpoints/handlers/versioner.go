package handlers

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// encodeVersion is what responses are converted to: the endpoint's group
// version, reaching across groups where one storage serves two
// (core/v1 Events answered as events.k8s.io/v1).
func (s *RequestScope) encodeVersion() runtime.GroupVersioner {
	return ServedVersion(s.Kind.GroupVersion(), s.Creater)
}

// ServedVersion is the target objects of gv are converted to for a
// client, over HTTP or in-process (see servedVersioner).
func ServedVersion(gv schema.GroupVersion, creater runtime.ObjectCreater) runtime.GroupVersioner {
	return servedVersioner{gv: gv, creater: creater}
}

// servedVersioner targets gv. A type of another group converts to the kind
// of the same name in gv when gv has one, which a plain GroupVersion
// refuses: it only converts within a group.
type servedVersioner struct {
	gv      schema.GroupVersion
	creater runtime.ObjectCreater
}

func (v servedVersioner) KindForGroupVersionKinds(kinds []schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	if gvk, ok := v.gv.KindForGroupVersionKinds(kinds); ok {
		return gvk, true
	}
	for _, k := range kinds {
		target := v.gv.WithKind(k.Kind)
		if _, err := v.creater.New(target); err == nil {
			return target, true
		}
	}
	return schema.GroupVersionKind{}, false
}

// Identifier names the target for the encoders' caches: the same as the
// group version's, as the output is the same.
func (v servedVersioner) Identifier() string { return v.gv.Identifier() }

// defaultHub gives a body converted into the storage version (the hub)
// the hub's defaults too, as upstream objects get them when read back from
// storage. A body already in the hub's version was defaulted on decoding.
func (s *RequestScope) defaultHub(obj runtime.Object) {
	if kinds, _, err := s.Typer.ObjectKinds(obj); err == nil && len(kinds) > 0 && kinds[0].GroupVersion() != s.Kind.GroupVersion() {
		s.Defaulter.Default(obj)
	}
}
