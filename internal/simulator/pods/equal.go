package pods

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// statusEqual reports whether two pod statuses are the same, so an
// unchanged status is not written.
func statusEqual(a, b *corev1.PodStatus) bool { return equality.Semantic.DeepEqual(a, b) }
