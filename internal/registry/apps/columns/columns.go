// Package columns holds the table columns the workload resources share
// (CONTAINERS, IMAGES and the selector of -o wide), printed as upstream
// prints them for deployments, replicasets, statefulsets and daemonsets.
package columns

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Containers is the -o wide CONTAINERS column.
func Containers() metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."}
}

// Images is the -o wide IMAGES column.
func Images() metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."}
}

// Selector is the -o wide SELECTOR column; description is the selector
// field's documentation.
func Selector(description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Selector", Type: "string", Priority: 1, Description: description}
}

// ContainersAndImages joins the names and the images of the template's
// containers with commas.
func ContainersAndImages(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	im := make([]string, len(containers))
	for i, c := range containers {
		n[i], im[i] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(im, ",")
}
