package server

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/jsonpath"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// tableConvertor renders additionalPrinterColumns: NAME first, the
// columns, then Age last when no column is named Age, as upstream.
type tableConvertor struct {
	headers []metav1.TableColumnDefinition
	paths   []*jsonpath.JSONPath // nil for NAME and the added Age
	ageAt   int                  // index of the added Age column, -1 if none
}

func newTableConvertor(cols []apiextv1.CustomResourceColumnDefinition) (*tableConvertor, error) {
	t := &tableConvertor{ageAt: -1}
	t.headers = append(t.headers, metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name",
		Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]})
	t.paths = append(t.paths, nil)
	hasAge := false
	for _, c := range cols {
		p := jsonpath.New(c.Name)
		if err := p.Parse(fmt.Sprintf("{%s}", c.JSONPath)); err != nil {
			return nil, fmt.Errorf("unrecognized column definition %q", c.JSONPath)
		}
		p.AllowMissingKeys(true)
		t.headers = append(t.headers, metav1.TableColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format,
			Description: c.Description, Priority: c.Priority})
		t.paths = append(t.paths, p)
		hasAge = hasAge || strings.EqualFold(c.Name, "age")
	}
	if !hasAge {
		t.ageAt = len(t.headers)
		t.headers = append(t.headers, metav1.TableColumnDefinition{Name: "Age", Type: "date",
			Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]})
		t.paths = append(t.paths, nil)
	}
	return t, nil
}

func (t *tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{ColumnDefinitions: t.headers}
	if m, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion, table.Continue, table.RemainingItemCount = m.GetResourceVersion(), m.GetContinue(), m.GetRemainingItemCount()
	} else if m, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	var err error
	if meta.IsListType(obj) {
		err = meta.EachListItem(obj, func(item runtime.Object) error {
			row, err := t.row(item)
			table.Rows = append(table.Rows, row)
			return err
		})
	} else {
		var row metav1.TableRow
		row, err = t.row(obj)
		table.Rows = append(table.Rows, row)
	}
	return table, err
}

func (t *tableConvertor) row(obj runtime.Object) (metav1.TableRow, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return metav1.TableRow{}, fmt.Errorf("unexpected object %T in a custom resource table", obj)
	}
	row := metav1.TableRow{Object: runtime.RawExtension{Object: obj}, Cells: make([]any, len(t.headers))}
	for i, p := range t.paths {
		switch {
		case i == 0:
			row.Cells[i] = u.GetName()
		case i == t.ageAt:
			row.Cells[i] = age(u.GetCreationTimestamp())
		default:
			row.Cells[i] = cell(p, u.Object, t.headers[i].Type)
		}
	}
	return row, nil
}

func age(ts metav1.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}

// cell is the first value the path finds, nil when none or when it does
// not fit the column type (upstream leaves such cells empty).
func cell(p *jsonpath.JSONPath, obj map[string]any, typ string) any {
	results, err := p.FindResults(obj)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	v := results[0][0].Interface()
	switch typ {
	case "integer":
		switch n := v.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
		return nil
	case "number":
		switch n := v.(type) {
		case int64, float64:
			return n
		}
		return nil
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
		return nil
	case "date":
		if s, ok := v.(string); ok {
			if ts, err := time.Parse(time.RFC3339, s); err == nil {
				return duration.HumanDuration(time.Since(ts))
			}
		}
		return nil
	case "string":
		if s, ok := v.(string); ok {
			return s
		}
	}
	if k := reflect.ValueOf(v).Kind(); k == reflect.Map || k == reflect.Slice {
		var buf bytes.Buffer
		if err := p.PrintResults(&buf, results[0]); err == nil {
			return buf.String()
		}
	}
	return fmt.Sprint(v)
}
