package configmap

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newREST(t *testing.T) *REST {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	r, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewREST: %v", err)
	}
	return r
}

func TestDescription(t *testing.T) {
	r := newREST(t)
	if got := r.ShortNames(); len(got) != 1 || got[0] != "cm" {
		t.Errorf("short names = %v", got)
	}
	if r.GetSingularName() != "configmap" || !r.NamespaceScoped() {
		t.Errorf("singular=%q namespaced=%v", r.GetSingularName(), r.NamespaceScoped())
	}
}

func TestCreateSelectUpdate(t *testing.T) {
	r := newREST(t)
	ctx := registrytest.NamespaceContext("ns")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Data: map[string]string{"k": "v"}, Immutable: ptr.To(true)}
	if _, err := r.Create(ctx, cm, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := r.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}}, nil, nil); err != nil {
		t.Fatalf("create b: %v", err)
	}

	list, err := r.List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "a")})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if items := list.(*corev1.ConfigMapList).Items; len(items) != 1 || items[0].Name != "a" {
		t.Fatalf("selected %v, want only a", items)
	}

	got, err := r.Get(ctx, "a", &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	changed := got.(*corev1.ConfigMap).DeepCopy()
	changed.Data["k"] = "w"
	_, _, err = r.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, &metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("update of an immutable configmap: %v, want Invalid", err)
	}

	table, err := r.ConvertToTable(ctx, list, nil)
	if err != nil || len(table.Rows) != 1 || table.ColumnDefinitions[1].Name != "Data" {
		t.Fatalf("table = %+v, %v", table, err)
	}
}

func TestGetAttrs(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"app": "x"}}}
	ls, fs, err := GetAttrs(cm)
	if err != nil {
		t.Fatal(err)
	}
	if ls["app"] != "x" || fs["metadata.name"] != "a" || fs["metadata.namespace"] != "ns" || len(fs) != 2 {
		t.Errorf("labels=%v fields=%v", ls, fs)
	}
}
