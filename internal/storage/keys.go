package storage

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// CheckKey rejects keys outside a resource's folder (prefix, without a
// trailing "/") and keys that climb out of it with "." or "..", so one
// resource's store cannot touch another's data.
func CheckKey(key, prefix string) error {
	// Checked in place: prefix+"/" would allocate on every request.
	inFolder := len(key) > len(prefix) && key[len(prefix)] == '/' && strings.HasPrefix(key, prefix)
	if key != prefix && !inFolder {
		return NewError(ErrCodeInvalidObj, key, 0, "key is outside the resource prefix "+prefix)
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == ".." || seg == "." {
			return NewError(ErrCodeInvalidObj, key, 0, "key must not contain . or .. segments")
		}
	}
	return nil
}

// NewBookmark returns the object of a BOOKMARK event: an empty object of
// the resource's kind (from newFunc) carrying only rv and, when it marks
// the end of a watch's initial events, the k8s.io/initial-events-end
// annotation.
func NewBookmark(newFunc func() runtime.Object, versioner Versioner, rv uint64, initialEventsEnd bool) (runtime.Object, error) {
	obj := newFunc()
	if err := versioner.UpdateObject(obj, rv); err != nil {
		return nil, err
	}
	if initialEventsEnd {
		accessor, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		accessor.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return obj, nil
}
