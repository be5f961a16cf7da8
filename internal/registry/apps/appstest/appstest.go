// Package appstest holds what the tests of the apps resources share:
// creating objects the way a request does (scheme defaults first) and
// reading the causes of a 422.
package appstest

import (
	"context"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Create defaults obj with scheme, as the handlers do after decoding, and
// creates it through storage.
func Create(ctx context.Context, scheme *runtime.Scheme, storage rest.Storage, obj runtime.Object) (runtime.Object, error) {
	scheme.Default(obj)
	return storage.(rest.Creater).Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
}

// Update writes obj through storage (a PUT).
func Update(ctx context.Context, storage rest.Storage, name string, obj runtime.Object) (runtime.Object, error) {
	out, _, err := storage.(rest.Updater).Update(ctx, name, rest.DefaultUpdatedObjectInfo(obj), nil, nil, false, &metav1.UpdateOptions{})
	return out, err
}

// Get reads name through storage.
func Get(t *testing.T, ctx context.Context, storage rest.Storage, name string) runtime.Object {
	t.Helper()
	obj, err := storage.(rest.Getter).Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	return obj
}

// Causes returns the "field type" of each cause of err, sorted; err must
// be a 422.
func Causes(t *testing.T, err error) []string {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("err = %v, want Invalid", err)
	}
	var got []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		got = append(got, c.Field+" "+string(c.Type))
	}
	slices.Sort(got)
	return got
}

// ColumnNames returns the names of the table's columns and which are
// -o wide only.
func ColumnNames(table *metav1.Table) (names []string, wide []bool) {
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
		wide = append(wide, c.Priority == 1)
	}
	return names, wide
}
