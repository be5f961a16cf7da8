package storage

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// Versioner reads and writes resourceVersion on API objects.
type Versioner interface {
	UpdateObject(obj runtime.Object, resourceVersion uint64) error
	UpdateList(obj runtime.Object, resourceVersion uint64, continueValue string, remainingItemCount *int64) error
	// PrepareObjectForStorage clears fields that must not be stored
	// (resourceVersion, selfLink).
	PrepareObjectForStorage(obj runtime.Object) error
	ObjectResourceVersion(obj runtime.Object) (uint64, error)
	ParseResourceVersion(resourceVersion string) (uint64, error)
}

// APIObjectVersioner stores the revision in metadata.resourceVersion.
type APIObjectVersioner struct{}

var _ Versioner = APIObjectVersioner{}

// UpdateObject sets metadata.resourceVersion (0 clears it).
func (APIObjectVersioner) UpdateObject(obj runtime.Object, resourceVersion uint64) error {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	accessor.SetResourceVersion(formatRV(resourceVersion))
	return nil
}

// UpdateList sets the list metadata.
func (APIObjectVersioner) UpdateList(obj runtime.Object, resourceVersion uint64, continueValue string, remainingItemCount *int64) error {
	if resourceVersion == 0 {
		return fmt.Errorf("illegal resource version from storage: %d", resourceVersion)
	}
	listAccessor, err := meta.ListAccessor(obj)
	if err != nil {
		return err
	}
	listAccessor.SetResourceVersion(formatRV(resourceVersion))
	listAccessor.SetContinue(continueValue)
	listAccessor.SetRemainingItemCount(remainingItemCount)
	return nil
}

// PrepareObjectForStorage clears resourceVersion and selfLink.
func (APIObjectVersioner) PrepareObjectForStorage(obj runtime.Object) error {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	accessor.SetResourceVersion("")
	accessor.SetSelfLink("")
	return nil
}

// ObjectResourceVersion parses the object's resourceVersion.
func (v APIObjectVersioner) ObjectResourceVersion(obj runtime.Object) (uint64, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return 0, err
	}
	rv := accessor.GetResourceVersion()
	if rv == "" {
		return 0, nil
	}
	return strconv.ParseUint(rv, 10, 64)
}

// ParseResourceVersion parses a resourceVersion from a request; "" is 0.
func (APIObjectVersioner) ParseResourceVersion(resourceVersion string) (uint64, error) {
	if resourceVersion == "" || resourceVersion == "0" {
		return 0, nil
	}
	v, err := strconv.ParseUint(resourceVersion, 10, 64)
	if err != nil {
		// Worded like the field error upstream reports.
		return 0, &Error{Code: ErrCodeInvalidResourceVersion,
			Message: fmt.Sprintf("resourceVersion: Invalid value: %q: %v", resourceVersion, err)}
	}
	return v, nil
}

func formatRV(v uint64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatUint(v, 10)
}
