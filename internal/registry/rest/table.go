package rest

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// defaultTableConvertor prints what every object has: its name and its age.
type defaultTableConvertor struct {
	resource schema.GroupResource
	columns  []metav1.TableColumnDefinition
}

// NewDefaultTableConvertor returns the Table renderer of resources without
// their own columns: "Name" (format name) and "Created At" (type date),
// described with the ObjectMeta field docs, as kube-apiserver prints them.
// resource names the resource in the 406 for objects without metadata when
// the request does not say.
func NewDefaultTableConvertor(resource schema.GroupResource) TableConvertor {
	docs := metav1.ObjectMeta{}.SwaggerDoc()
	return defaultTableConvertor{
		resource: resource,
		columns: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: docs["name"]},
			{Name: "Created At", Type: "date", Description: docs["creationTimestamp"]},
		},
	}
}

// ConvertToTable renders one object or every item of a list.
func (c defaultTableConvertor) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	addRow := func(obj runtime.Object) error {
		m, err := meta.Accessor(obj)
		if err != nil {
			return errNotAcceptable{resource: c.resourceFrom(ctx)}
		}
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells:  []any{m.GetName(), m.GetCreationTimestamp().UTC().Format(time.RFC3339)},
			Object: runtime.RawExtension{Object: obj},
		})
		return nil
	}
	var err error
	if meta.IsListType(object) {
		err = meta.EachListItem(object, addRow)
	} else {
		err = addRow(object)
	}
	if err != nil {
		return nil, err
	}
	if l, err := meta.ListAccessor(object); err == nil {
		table.ResourceVersion = l.GetResourceVersion()
		table.Continue = l.GetContinue()
		table.RemainingItemCount = l.GetRemainingItemCount()
	} else if m, err := meta.CommonAccessor(object); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || !opts.NoHeaders {
		table.ColumnDefinitions = append([]metav1.TableColumnDefinition(nil), c.columns...)
	}
	return table, nil
}

func (c defaultTableConvertor) resourceFrom(ctx context.Context) schema.GroupResource {
	if info, ok := request.RequestInfoFrom(ctx); ok && info.Resource != "" {
		return schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	}
	return c.resource
}

// errNotAcceptable is the 406 for an object that cannot become a row.
type errNotAcceptable struct {
	resource schema.GroupResource
}

func (e errNotAcceptable) Error() string {
	return fmt.Sprintf("the resource %s does not support being converted to a Table", e.resource)
}

// Status lets the response writer send it as a Status (APIStatus).
func (e errNotAcceptable) Status() metav1.Status {
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: e.Error(),
	}
}
