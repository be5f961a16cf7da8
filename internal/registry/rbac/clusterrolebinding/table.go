package clusterrolebinding

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kapirbacv1 "github.com/kapi-dev/kapi/internal/apis/rbac/v1"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME ROLE AGE, and USERS GROUPS SERVICEACCOUNTS with -o
// wide.
func Table() *printers.Table[*rbacv1.ClusterRoleBinding] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Role", Type: "string", Description: rbacv1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]},
		printers.AgeColumn(),
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the clusterRoleBinding"},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the clusterRoleBinding"},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the clusterRoleBinding"},
	}
	return printers.New(columns, func(crb *rbacv1.ClusterRoleBinding, now time.Time) []any {
		users, groups, sas, _ := kapirbacv1.SubjectsStrings(crb.Subjects)
		return []any{
			crb.Name, crb.RoleRef.Kind + "/" + crb.RoleRef.Name, printers.Age(crb.CreationTimestamp, now),
			strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", "),
		}
	})
}
