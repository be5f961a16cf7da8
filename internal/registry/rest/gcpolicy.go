package rest

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// OrphanInGroupVersions is the default garbage collection policy of a
// resource that kept orphaning its dependents in the versions that
// existed before server-side garbage collection: OrphanDependents when
// the request came through one of legacy, DeleteDependents otherwise
// (including calls from inside the server, which carry no request).
func OrphanInGroupVersions(ctx context.Context, legacy ...schema.GroupVersion) GarbageCollectionPolicy {
	info, ok := request.RequestInfoFrom(ctx)
	if !ok {
		return DeleteDependents
	}
	if slices.Contains(legacy, schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}) {
		return OrphanDependents
	}
	return DeleteDependents
}
