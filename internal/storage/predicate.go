package storage

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// AttrFunc returns the labels and selectable fields of an object.
type AttrFunc func(obj runtime.Object) (labels.Set, fields.Set, error)

// SelectionPredicate selects objects by label and field and carries paging.
type SelectionPredicate struct {
	Label    labels.Selector
	Field    fields.Selector
	GetAttrs AttrFunc
	// Limit caps how many items a list returns; 0 means no cap.
	Limit int64
	// Continue is the opaque token from a previous page.
	Continue            string
	AllowWatchBookmarks bool
}

// Everything matches every object.
var Everything = SelectionPredicate{Label: labels.Everything(), Field: fields.Everything()}

// Empty is true when the predicate selects every object.
func (p SelectionPredicate) Empty() bool {
	return (p.Label == nil || p.Label.Empty()) && (p.Field == nil || p.Field.Empty())
}

// Matches reports whether obj is selected.
func (p SelectionPredicate) Matches(obj runtime.Object) (bool, error) {
	if p.Empty() {
		return true, nil
	}
	if p.GetAttrs == nil {
		return true, nil
	}
	ls, fs, err := p.GetAttrs(obj)
	if err != nil {
		return false, err
	}
	return p.MatchesAttrs(ls, fs), nil
}

// MatchesAttrs reports whether the given labels and fields are selected.
func (p SelectionPredicate) MatchesAttrs(ls labels.Set, fs fields.Set) bool {
	if p.Label != nil && !p.Label.Empty() && !p.Label.Matches(ls) {
		return false
	}
	if p.Field != nil && !p.Field.Empty() && !p.Field.Matches(fs) {
		return false
	}
	return true
}

// MatchesSingle returns the object name the field selector pins with
// metadata.name=<name>, if any, so a backend can read one key instead of
// scanning a prefix.
func (p SelectionPredicate) MatchesSingle() (string, bool) {
	if p.Field == nil || len(p.Continue) > 0 {
		return "", false
	}
	return p.Field.RequiresExactMatch("metadata.name")
}
