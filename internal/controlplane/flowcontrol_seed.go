package controlplane

import (
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
	objects: flowControlObjects,
}

func flowControlObjects() []runtime.Object {
	var out []runtime.Object
	for _, pl := range bootstrap.SuggestedPriorityLevels() {
		out = append(out, pl)
	}
	for _, fs := range bootstrap.SuggestedFlowSchemas() {
		out = append(out, fs)
	}
	for _, pl := range bootstrap.MandatoryPriorityLevels() {
		out = append(out, pl)
	}
	for _, fs := range bootstrap.MandatoryFlowSchemas() {
		out = append(out, fs)
	}
	return out
}
