package controlplane

import (
	"sync"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/bootstrap"
)

// flowControlSeed is the APF configuration the
// priority-and-fairness-config-producer's first round creates on empty
// storage (see seed.go): the suggested objects, then the mandatory ones,
// priority levels before flow schemas, as the round orders them.
var flowControlSeed = seedSet{
	resources: []schema.GroupResource{
		{Group: flowcontrolv1.GroupName, Resource: "prioritylevelconfigurations"},
		{Group: flowcontrolv1.GroupName, Resource: "flowschemas"},
	},
	objects: func(*runtime.Scheme) ([]seedObject, error) { return flowControlObjects() },
}

// flowControlObjects are built once per process, so the seed's memo of
// managed fields recognizes them (seed_fields.go); the writer copies them.
var flowControlObjects = sync.OnceValues(func() ([]seedObject, error) {
	var out []seedObject
	for _, pl := range bootstrap.SuggestedPriorityLevels() {
		out = append(out, seedObject{obj: pl})
	}
	for _, fs := range bootstrap.SuggestedFlowSchemas() {
		out = append(out, seedObject{obj: fs})
	}
	for _, pl := range bootstrap.MandatoryPriorityLevels() {
		out = append(out, seedObject{obj: pl})
	}
	for _, fs := range bootstrap.MandatoryFlowSchemas() {
		out = append(out, seedObject{obj: fs})
	}
	return out, nil
})
