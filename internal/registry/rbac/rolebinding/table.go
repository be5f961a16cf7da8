package rolebinding

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
func Table() *printers.Table[*rbacv1.RoleBinding] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Role", Type: "string", Description: rbacv1.RoleBinding{}.SwaggerDoc()["roleRef"]},
		printers.AgeColumn(),
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding"},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding"},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding"},
	}
	return printers.New(columns, func(rb *rbacv1.RoleBinding, now time.Time) []any {
		users, groups, sas, _ := kapirbacv1.SubjectsStrings(rb.Subjects)
		return []any{
			rb.Name, rb.RoleRef.Kind + "/" + rb.RoleRef.Name, printers.Age(rb.CreationTimestamp, now),
			strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", "),
		}
	})
}
