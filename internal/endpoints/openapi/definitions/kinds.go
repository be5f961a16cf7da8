package definitions

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// groupVersionKinds returns the x-kubernetes-group-version-kind value of
// the definition called name: every group version kind the scheme
// registers its Go type under, sorted by group, version and kind, as
// kube-apiserver's definition namer lists them (meta/v1 Status,
// DeleteOptions or WatchEvent are registered in many group versions).
// Nil when the type is no kind.
func (b *Builder) groupVersionKinds(name string) []any {
	b.kindsOnce.Do(func() {
		byName := map[string][]schema.GroupVersionKind{}
		for gvk, t := range b.scheme.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal || !definable(t) {
				continue
			}
			n := Name(t)
			byName[n] = append(byName[n], gvk)
		}
		b.kinds = make(map[string][]any, len(byName))
		for n, gvks := range byName {
			slices.SortFunc(gvks, func(a, b schema.GroupVersionKind) int {
				return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
			})
			list := make([]any, 0, len(gvks))
			for _, gvk := range slices.Compact(gvks) {
				list = append(list, map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
			}
			b.kinds[n] = list
		}
	})
	return b.kinds[name]
}
