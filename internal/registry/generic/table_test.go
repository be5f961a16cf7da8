package generic_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

// dataTable prints only the number of data keys.
type dataTable struct{}

func (dataTable) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	return &metav1.Table{
		ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Data", Type: "integer"}},
		Rows:              []metav1.TableRow{{Cells: []any{int64(len(obj.(*corev1.ConfigMap).Data))}}},
	}, nil
}

func TestConvertToTable(t *testing.T) {
	tests := []struct {
		name        string
		convertor   bool
		wantColumns []string
		wantCells   []any
	}{
		{name: "default", wantColumns: []string{"Name", "Created At"}},
		{name: "resource's own", convertor: true, wantColumns: []string{"Data"}, wantCells: []any{int64(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, func(s *generic.Store, _ *resttest.ConfigMapStrategy) {
				if tt.convertor {
					s.TableConvertor = dataTable{}
				}
			})
			cm := mustCreate(t, s, newConfigMap("ns", "foo", map[string]string{"k": "v"}))
			table, err := s.ConvertToTable(nsContext("ns"), cm, nil)
			if err != nil {
				t.Fatal(err)
			}
			var columns []string
			for _, c := range table.ColumnDefinitions {
				columns = append(columns, c.Name)
			}
			if len(columns) != len(tt.wantColumns) || len(table.Rows) != 1 {
				t.Fatalf("columns %v and %d rows, want %v and 1 row", columns, len(table.Rows), tt.wantColumns)
			}
			for i := range columns {
				if columns[i] != tt.wantColumns[i] {
					t.Errorf("columns %v, want %v", columns, tt.wantColumns)
				}
			}
			cells := tt.wantCells
			if cells == nil {
				cells = []any{"foo", cm.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z")}
			}
			for i, c := range cells {
				if table.Rows[0].Cells[i] != c {
					t.Errorf("cells %v, want %v", table.Rows[0].Cells, cells)
				}
			}
		})
	}
}
