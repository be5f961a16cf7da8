package rest

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestOrphanInGroupVersions(t *testing.T) {
	batchV1 := schema.GroupVersion{Group: "batch", Version: "v1"}
	tests := []struct {
		name string
		info *request.RequestInfo
		want GarbageCollectionPolicy
	}{
		{name: "legacy version", info: &request.RequestInfo{APIGroup: "batch", APIVersion: "v1"}, want: OrphanDependents},
		{name: "other version", info: &request.RequestInfo{APIGroup: "batch", APIVersion: "v2"}, want: DeleteDependents},
		{name: "no request", want: DeleteDependents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.info != nil {
				ctx = request.WithRequestInfo(ctx, tt.info)
			}
			if got := OrphanInGroupVersions(ctx, batchV1); got != tt.want {
				t.Errorf("policy = %s, want %s", got, tt.want)
			}
		})
	}
}
