package rest_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestDefaultTableConvertor(t *testing.T) {
	created := metav1.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	foo := configMap("ns", "foo")
	foo.CreationTimestamp, foo.ResourceVersion = created, "5"
	bar := configMap("ns", "bar")
	bar.CreationTimestamp = created
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next"}, Items: []corev1.ConfigMap{*foo, *bar}}
	docs := metav1.ObjectMeta{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: docs["name"]},
		{Name: "Created At", Type: "date", Description: docs["creationTimestamp"]},
	}
	row := func(obj runtime.Object, name string) metav1.TableRow {
		return metav1.TableRow{Cells: []any{name, "2024-01-02T03:04:05Z"}, Object: runtime.RawExtension{Object: obj}}
	}

	tests := []struct {
		name    string
		object  runtime.Object
		options runtime.Object
		want    *metav1.Table
	}{
		{
			name: "one object", object: foo,
			want: &metav1.Table{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, ColumnDefinitions: columns, Rows: []metav1.TableRow{row(foo, "foo")}},
		},
		{
			name: "list", object: list,
			want: &metav1.Table{
				ListMeta:          metav1.ListMeta{ResourceVersion: "9", Continue: "next"},
				ColumnDefinitions: columns,
				Rows:              []metav1.TableRow{row(&list.Items[0], "foo"), row(&list.Items[1], "bar")},
			},
		},
		{
			name: "no headers", object: foo, options: &metav1.TableOptions{NoHeaders: true},
			want: &metav1.Table{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Rows: []metav1.TableRow{row(foo, "foo")}},
		},
	}
	convertor := rest.NewDefaultTableConvertor(corev1.Resource("configmaps"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convertor.ConvertToTable(context.Background(), tt.object, tt.options)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("table (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultTableConvertorNotAcceptable(t *testing.T) {
	ctx := request.WithRequestInfo(context.Background(), &request.RequestInfo{APIGroup: "example.com", Resource: "widgets"})
	_, err := rest.NewDefaultTableConvertor(corev1.Resource("configmaps")).ConvertToTable(ctx, &metav1.Status{}, nil)
	wantStatus(t, err, 406, "the resource widgets.example.com does not support being converted to a Table")
}
