// Package printers renders objects and lists as meta.k8s.io/v1 Tables for
// server-side printing (kubectl get), with the columns kube-apiserver
// prints for each resource. A resource's convertor is a Table built from
// its column definitions and a function that fills one row's cells.
package printers

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// CellsFunc fills the cells of one row, one per column, in column order.
// now is the time ages are measured against.
type CellsFunc[T runtime.Object] func(obj T, now time.Time) []any

// Table converts objects of type T (and lists of them) to Tables. It
// implements rest.TableConvertor.
type Table[T runtime.Object] struct {
	columns []metav1.TableColumnDefinition
	cells   CellsFunc[T]
	now     func() time.Time
}

// New returns a Table with the given columns and cell function, measuring
// ages against the wall clock.
func New[T runtime.Object](columns []metav1.TableColumnDefinition, cells CellsFunc[T]) *Table[T] {
	return &Table[T]{columns: columns, cells: cells, now: time.Now}
}

// WithClock returns a copy of t that measures ages against now; tests use
// it for stable AGE cells.
func (t *Table[T]) WithClock(now func() time.Time) *Table[T] {
	c := *t
	c.now = now
	return &c
}

// ConvertToTable renders one object or a list. Like kube-apiserver it
// always prints every column (kubectl hides priority>0 columns unless -o
// wide), omits the column definitions when tableOptions asks for no
// headers, and copies resourceVersion, continue and remainingItemCount
// from the list.
func (t *Table[T]) ConvertToTable(_ context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	noHeaders, err := noHeaders(tableOptions)
	if err != nil {
		return nil, err
	}
	items, err := t.items(object)
	if err != nil {
		return nil, err
	}
	now := t.now()
	table := &metav1.Table{Rows: make([]metav1.TableRow, 0, len(items))}
	for _, item := range items {
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells:  t.cells(item, now),
			Object: runtime.RawExtension{Object: item},
		})
	}
	if !noHeaders {
		table.ColumnDefinitions = t.columns
	}
	copyListMeta(table, object)
	return table, nil
}

// items returns the objects of a list, or the object itself.
func (t *Table[T]) items(object runtime.Object) ([]T, error) {
	if !meta.IsListType(object) {
		item, ok := object.(T)
		if !ok {
			return nil, fmt.Errorf("cannot print %T as a table of %T", object, *new(T))
		}
		return []T{item}, nil
	}
	objs, err := meta.ExtractList(object)
	if err != nil {
		return nil, err
	}
	items := make([]T, 0, len(objs))
	for _, obj := range objs {
		item, ok := obj.(T)
		if !ok {
			return nil, fmt.Errorf("cannot print list item %T as a table of %T", obj, *new(T))
		}
		items = append(items, item)
	}
	return items, nil
}

// noHeaders reads TableOptions; any other options type is an error, as
// upstream.
func noHeaders(tableOptions runtime.Object) (bool, error) {
	switch opts := tableOptions.(type) {
	case nil:
		return false, nil
	case *metav1.TableOptions:
		return opts != nil && opts.NoHeaders, nil
	default:
		return false, fmt.Errorf("unrecognized type %T for table options, can't display tabular output", tableOptions)
	}
}

func copyListMeta(table *metav1.Table, object runtime.Object) {
	if list, err := meta.ListAccessor(object); err == nil {
		table.ResourceVersion = list.GetResourceVersion()
		table.Continue = list.GetContinue()
		table.RemainingItemCount = list.GetRemainingItemCount()
		return
	}
	if obj, err := meta.CommonAccessor(object); err == nil {
		table.ResourceVersion = obj.GetResourceVersion()
	}
}

// NameColumn is the first column of most tables.
func NameColumn() metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]}
}

// AgeColumn shows how long ago the object was created.
func AgeColumn() metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]}
}

// Age renders the time since ts the way kubectl does ("5m", "3d"), or
// "<unknown>" for a zero time.
func Age(ts metav1.Time, now time.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(ts.Time))
}

// MicroAge is Age for MicroTime fields.
func MicroAge(ts metav1.MicroTime, now time.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(ts.Time))
}
