package v1

import (
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Priority values and names that Kubernetes reserves.
const (
	// HighestUserDefinablePriority is the highest value a priority class
	// that is not a system class may have.
	HighestUserDefinablePriority = int32(1000000000)
	// SystemCriticalPriority is the base value of the system classes.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
	// SystemPriorityClassPrefix starts every name reserved for system
	// classes.
	SystemPriorityClassPrefix = "system-"
	// SystemClusterCritical and SystemNodeCritical are the system classes.
	SystemClusterCritical = SystemPriorityClassPrefix + "cluster-critical"
	SystemNodeCritical    = SystemPriorityClassPrefix + "node-critical"
)

// SystemPriorityClasses returns new copies of the priority classes the API
// server creates at start; only these may use the system- prefix.
func SystemPriorityClasses() []*schedulingv1.PriorityClass {
	return []*schedulingv1.PriorityClass{
		{
			ObjectMeta:  metav1.ObjectMeta{Name: SystemNodeCritical},
			Value:       SystemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node.",
		},
		{
			ObjectMeta:  metav1.ObjectMeta{Name: SystemClusterCritical},
			Value:       SystemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
		},
	}
}

// IsKnownSystemPriorityClass says whether name, value and globalDefault
// are exactly those of a system class; the error says what differs.
func IsKnownSystemPriorityClass(name string, value int32, globalDefault bool) (bool, error) {
	for _, spc := range SystemPriorityClasses() {
		if spc.Name != name {
			continue
		}
		if spc.Value != value {
			return false, fmt.Errorf("value of %v PriorityClass must be %v", spc.Name, spc.Value)
		}
		if spc.GlobalDefault != globalDefault {
			return false, fmt.Errorf("globalDefault of %v PriorityClass must be %v", spc.Name, spc.GlobalDefault)
		}
		return true, nil
	}
	return false, fmt.Errorf("%v is not a known system priority class", name)
}
