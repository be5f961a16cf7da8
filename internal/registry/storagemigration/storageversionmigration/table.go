package storageversionmigration

import (
	"time"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME RESOURCE, the resource as resource.group, as
// kube-apiserver does (no age column).
func Table() *printers.Table[*storagemigrationv1.StorageVersionMigration] {
	columns := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Resource", Type: "string", Description: "Fully qualified resource to migrate"},
	}
	return printers.New(columns, func(svm *storagemigrationv1.StorageVersionMigration, _ time.Time) []any {
		return []any{svm.Name, svm.Spec.Resource.String()}
	})
}
