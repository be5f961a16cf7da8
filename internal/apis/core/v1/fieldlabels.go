package v1

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// fieldLabels lists, per kind, the field selectors kube-apiserver accepts.
// Kinds not listed (ConfigMap, ServiceAccount, ...) keep the scheme's
// default conversion, which accepts metadata.name and metadata.namespace
// with apimachinery's own error message, as upstream does. The registry's
// GetAttrs of each resource provides exactly these fields.
func fieldLabels() map[string][]string {
	return map[string][]string{
		"Event": {
			"involvedObject.kind",
			"involvedObject.namespace",
			"involvedObject.name",
			"involvedObject.uid",
			"involvedObject.apiVersion",
			"involvedObject.resourceVersion",
			"involvedObject.fieldPath",
			"reason",
			"reportingComponent",
			"source",
			"type",
			"metadata.namespace",
			"metadata.name",
		},
		// Namespaces are cluster-scoped: metadata.namespace is not
		// selectable.
		"Namespace": {"status.phase", "metadata.name"},
		"Secret":    {"type", "metadata.namespace", "metadata.name"},
		"Service":   {"spec.clusterIP", "spec.type", "metadata.namespace", "metadata.name"},
		// Nodes are cluster-scoped.
		"Node":                  {"metadata.name", "spec.unschedulable"},
		"ReplicationController": {"metadata.name", "metadata.namespace", "status.replicas"},
		// Pods: spec.host, what old v1 clients send, is translated
		// (fieldLabelAliases).
		"Pod": {
			"metadata.name",
			"metadata.namespace",
			"spec.nodeName",
			"spec.restartPolicy",
			"spec.schedulerName",
			"spec.serviceAccountName",
			"spec.hostNetwork",
			"status.phase",
			"status.podIP",
			"status.podIPs",
			"status.nominatedNodeName",
		},
	}
}

// fieldLabelAliases are the labels kube-apiserver accepts under an old
// name and translates, per kind.
func fieldLabelAliases() map[string]map[string]string {
	return map[string]map[string]string{
		"Pod": {"spec.host": "spec.nodeName"},
	}
}

// AddFieldLabelConversions registers the field-selector conversions of the
// core/v1 kinds kapi serves.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	aliases := fieldLabelAliases()
	for kind, labels := range fieldLabels() {
		err := scheme.AddFieldLabelConversionFunc(corev1.SchemeGroupVersion.WithKind(kind), allowLabels(labels, aliases[kind]))
		if err != nil {
			return err
		}
	}
	return nil
}

// allowLabels returns a conversion that passes the listed labels through
// unchanged, translates the aliases and rejects the rest with upstream's
// message.
func allowLabels(labels []string, aliases map[string]string) runtime.FieldLabelConversionFunc {
	return func(label, value string) (string, string, error) {
		if slices.Contains(labels, label) {
			return label, value, nil
		}
		if to, ok := aliases[label]; ok {
			return to, value, nil
		}
		return "", "", fmt.Errorf("field label not supported: %s", label)
	}
}
