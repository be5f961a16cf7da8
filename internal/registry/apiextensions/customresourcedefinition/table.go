package customresourcedefinition

import (
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME SCOPE VERSIONS CREATED AT, and with -o wide GROUP KIND
// SHORTNAMES ESTABLISHED, as kube-apiserver 1.37 does.
func Table() *printers.Table[*apiextensionsv1.CustomResourceDefinition] {
	docs := metav1.ObjectMeta{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: docs["name"]},
		{Name: "Scope", Type: "string", Description: "Cluster/Namespaced"},
		{Name: "Versions", Type: "string", Description: "Served versions"},
		{Name: "Created At", Type: "date", Description: docs["creationTimestamp"]},
		{Name: "Group", Type: "string", Priority: 1, Description: "API group"},
		{Name: "Kind", Type: "string", Priority: 1, Description: "CustomResource kind"},
		{Name: "ShortNames", Type: "string", Priority: 1, Description: "Short names"},
		{Name: "Established", Type: "boolean", Priority: 1, Description: "Established status"},
	}
	return printers.New(columns, func(crd *apiextensionsv1.CustomResourceDefinition, _ time.Time) []any {
		return []any{
			crd.Name,
			string(crd.Spec.Scope),
			servedVersions(crd),
			crd.CreationTimestamp.UTC().Format(time.RFC3339),
			crd.Spec.Group,
			crd.Spec.Names.Kind,
			strings.Join(crd.Spec.Names.ShortNames, ","),
			isEstablished(crd),
		}
	})
}

// servedVersions lists the served versions, sorted, the storage one
// marked "(storage)".
func servedVersions(crd *apiextensionsv1.CustomResourceDefinition) string {
	var versions []string
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		label := v.Name
		if v.Storage {
			label += "(storage)"
		}
		versions = append(versions, label)
	}
	sort.Strings(versions)
	return strings.Join(versions, ",")
}

func isEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
