package controlplane

import (
	"sync"

	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
)

// priorityClassSeed is the system priority classes
// scheduling/bootstrap-system-priority-classes creates through the
// loopback client (see seed.go).
var priorityClassSeed = seedSet{
	resources: []schema.GroupResource{{Group: schedulingv1.GroupName, Resource: "priorityclasses"}},
	objects:   func(*runtime.Scheme) ([]seedObject, error) { return priorityClassObjects() },
}

// priorityClassObjects are built once per process, so the seed's memo of
// managed fields recognizes them (seed_fields.go); the writer copies them.
var priorityClassObjects = sync.OnceValues(func() ([]seedObject, error) {
	var out []seedObject
	for _, pc := range kapischedulingv1.SystemPriorityClasses() {
		out = append(out, seedObject{obj: pc})
	}
	return out, nil
})
