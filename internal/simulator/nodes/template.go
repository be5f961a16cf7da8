package nodes

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// LoadTemplate reads a node template: a Node object in YAML or JSON whose
// metadata.labels, metadata.annotations, spec.taints, status.capacity and
// status.allocatable every simulated node copies. Resources the template
// leaves out keep DefaultTemplate's values; allocatable defaults to
// capacity. Anything else set in the template would be ignored, so it is
// refused.
func LoadTemplate(path string) (*corev1.Node, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTemplate(data)
}

// ParseTemplate is LoadTemplate for the file's content.
func ParseTemplate(data []byte) (*corev1.Node, error) {
	var n corev1.Node
	if err := yaml.UnmarshalStrict(bytes.TrimSpace(data), &n); err != nil {
		return nil, fmt.Errorf("not a Node: %w", err)
	}
	if (n.Kind != "" && n.Kind != "Node") || (n.APIVersion != "" && n.APIVersion != "v1") {
		return nil, fmt.Errorf("want a v1 Node, got %s %s", n.APIVersion, n.Kind)
	}
	if err := checkOnlyTemplateFields(&n); err != nil {
		return nil, err
	}
	tmpl := DefaultTemplate()
	tmpl.Labels, tmpl.Annotations, tmpl.Spec.Taints = n.Labels, n.Annotations, n.Spec.Taints
	for name, q := range n.Status.Capacity {
		tmpl.Status.Capacity[name] = q
		tmpl.Status.Allocatable[name] = q
	}
	for name, q := range n.Status.Allocatable {
		c, ok := tmpl.Status.Capacity[name]
		if !ok {
			return nil, fmt.Errorf("status.allocatable[%s] has no capacity", name)
		}
		if q.Cmp(c) > 0 {
			return nil, fmt.Errorf("status.allocatable[%s] %s exceeds its capacity %s", name, q.String(), c.String())
		}
		tmpl.Status.Allocatable[name] = q
	}
	for name, q := range tmpl.Status.Capacity {
		if q.Sign() < 0 {
			return nil, fmt.Errorf("status.capacity[%s] must not be negative", name)
		}
	}
	return tmpl, nil
}

// checkOnlyTemplateFields refuses the fields a template cannot set: the
// name and the rest of the spec and status are each node's own.
func checkOnlyTemplateFields(n *corev1.Node) error {
	var errs []error
	m := n.ObjectMeta
	m.Labels, m.Annotations = nil, nil
	if m.Name != "" || m.GenerateName != "" {
		errs = append(errs, errors.New("metadata.name: simulated nodes are named kapi-node-<index>"))
		m.Name, m.GenerateName = "", ""
	}
	if !equality.Semantic.DeepEqual(m, metav1.ObjectMeta{}) {
		errs = append(errs, errors.New("metadata: only labels and annotations are taken from a template"))
	}
	spec := n.Spec
	spec.Taints = nil
	if !equality.Semantic.DeepEqual(spec, corev1.NodeSpec{}) {
		errs = append(errs, errors.New("spec: only taints are taken from a template"))
	}
	status := n.Status
	status.Capacity, status.Allocatable = nil, nil
	if !equality.Semantic.DeepEqual(status, corev1.NodeStatus{}) {
		errs = append(errs, errors.New("status: only capacity and allocatable are taken from a template"))
	}
	return errors.Join(errs...)
}
