package generic_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// markedTable is a TableConvertor whose tables have one column, "marked",
// so a test can tell it from the default.
type markedTable struct{}

func (markedTable) ConvertToTable(context.Context, kruntime.Object, kruntime.Object) (*metav1.Table, error) {
	return &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "marked"}}}, nil
}

// configMapSpec is a complete spec for ConfigMaps whose strategy allows
// create on update, and whose AttrFunc adds the field "marked".
func configMapSpec() generic.StoreSpec {
	strategy := resttest.NewConfigMapStrategy(resttest.NewScheme())
	strategy.CreateOnUpdate = true
	return generic.StoreSpec{
		NewFunc:        func() kruntime.Object { return &corev1.ConfigMap{} },
		NewListFunc:    func() kruntime.Object { return &corev1.ConfigMapList{} },
		Resource:       corev1.Resource("configmaps"),
		Singular:       corev1.Resource("configmap"),
		Strategy:       strategy,
		TableConvertor: markedTable{},
		AttrFunc: func(obj kruntime.Object) (labels.Set, fields.Set, error) {
			ls, fs, err := generic.DefaultNamespaceScopedAttr(obj)
			if err == nil {
				fs["marked"] = "yes"
			}
			return ls, fs, err
		},
	}
}

func TestNewStoreFillsTheStore(t *testing.T) {
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	codec := serializer.NewCodecFactory(resttest.NewScheme()).LegacyCodec(corev1.SchemeGroupVersion)
	s, err := generic.NewStore(configMapSpec(), restOptions{backend: backend, codec: codec})
	if err != nil {
		t.Fatalf("NewStore: %v", err)
	}
	t.Cleanup(s.Destroy)

	if _, ok := s.NewFunc().(*corev1.ConfigMap); !ok {
		t.Errorf("NewFunc() = %T, want *v1.ConfigMap", s.NewFunc())
	}
	if _, ok := s.NewListFunc().(*corev1.ConfigMapList); !ok {
		t.Errorf("NewListFunc() = %T, want *v1.ConfigMapList", s.NewListFunc())
	}
	if got, want := s.DefaultQualifiedResource, corev1.Resource("configmaps"); got != want {
		t.Errorf("DefaultQualifiedResource = %v, want %v", got, want)
	}
	if got, want := s.SingularQualifiedResource, corev1.Resource("configmap"); got != want {
		t.Errorf("SingularQualifiedResource = %v, want %v", got, want)
	}
	for name, strategy := range map[string]any{"create": s.CreateStrategy, "update": s.UpdateStrategy, "delete": s.DeleteStrategy} {
		if cm, ok := strategy.(resttest.ConfigMapStrategy); !ok || !cm.CreateOnUpdate {
			t.Errorf("%s strategy = %T (CreateOnUpdate %v), want the spec's strategy", name, strategy, ok && cm.CreateOnUpdate)
		}
	}
	table, err := s.ConvertToTable(context.Background(), &corev1.ConfigMap{}, nil)
	if err != nil {
		t.Fatalf("ConvertToTable: %v", err)
	}
	var columns []string
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	if len(columns) != 1 || columns[0] != "marked" {
		t.Errorf("table columns = %q, want [\"marked\"] of the spec's TableConvertor", columns)
	}
	_, fs, err := s.PredicateFunc(labels.Everything(), fields.Everything()).GetAttrs(&corev1.ConfigMap{})
	if err != nil || fs["marked"] != "yes" {
		t.Errorf("predicate attributes = %v, %v; want the spec's AttrFunc", fs, err)
	}
	if key, err := s.KeyFunc(nsContext("ns"), "foo"); key != "/configmaps/ns/foo" || err != nil {
		t.Errorf("KeyFunc = %q, %v; want %q", key, err, "/configmaps/ns/foo")
	}
	if s.Storage == nil {
		t.Error("Storage is nil, want the storage of the REST options")
	}
}

func TestNewStoreRefusesIncompleteSpecs(t *testing.T) {
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	options := restOptions{backend: backend}
	tests := []struct {
		name    string
		edit    func(spec *generic.StoreSpec)
		options generic.RESTOptionsGetter
		wantErr string
	}{
		{"no strategy", func(spec *generic.StoreSpec) { spec.Strategy = nil }, options, "store spec for configmaps must have Strategy set"},
		{"no NewFunc", func(spec *generic.StoreSpec) { spec.NewFunc = nil }, options, "store for configmaps must have NewFunc set"},
		{"no NewListFunc", func(spec *generic.StoreSpec) { spec.NewListFunc = nil }, options, "store for configmaps must have NewListFunc set"},
		{"no resource", func(spec *generic.StoreSpec) { spec.Resource = corev1.Resource("") }, options, "non-empty qualified resource"},
		{"no singular", func(spec *generic.StoreSpec) { spec.Singular = corev1.Resource("") }, options, "store for configmaps must have a non-empty singular qualified resource"},
		{"no REST options", func(*generic.StoreSpec) {}, nil, "options for configmaps must have RESTOptions set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := configMapSpec()
			tt.edit(&spec)
			s, err := generic.NewStore(spec, tt.options)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.wantErr)
			}
			if s != nil {
				t.Errorf("store = %p, want nil on error", s)
			}
		})
	}
}
