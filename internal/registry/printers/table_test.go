package printers

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

var now = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return now }

// ago returns a creation timestamp d before now.
func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

type convertor interface {
	ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error)
}

// columnNames returns "Name/priority" for each column.
func columnNames(table *metav1.Table) []string {
	var names []string
	for _, c := range table.ColumnDefinitions {
		if c.Priority > 0 {
			names = append(names, c.Name+"/wide")
		} else {
			names = append(names, c.Name)
		}
	}
	return names
}

func TestResourceTables(t *testing.T) {
	tests := []struct {
		name    string
		conv    convertor
		obj     runtime.Object
		columns []string
		cells   []any
	}{
		{"configmap", ConfigMapTable().WithClock(clock),
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", CreationTimestamp: ago(5 * time.Minute)}, Data: map[string]string{"a": ""}, BinaryData: map[string][]byte{"b": nil}},
			[]string{"Name", "Data", "Age"}, []any{"cm", int64(2), "5m"}},
		{"secret", SecretTable().WithClock(clock),
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", CreationTimestamp: ago(3 * 24 * time.Hour)}, Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil, "tls.key": nil}},
			[]string{"Name", "Type", "Data", "Age"}, []any{"s", "kubernetes.io/tls", int64(2), "3d"}},
		{"serviceaccount", ServiceAccountTable().WithClock(clock),
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
			[]string{"Name", "Secrets", "Age"}, []any{"default", int64(0), "<unknown>"}},
		{"namespace", NamespaceTable().WithClock(clock),
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", CreationTimestamp: ago(90 * time.Second)}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
			[]string{"Name", "Status", "Age"}, []any{"team", "Terminating", "90s"}},
		{"lease", LeaseTable().WithClock(clock),
			&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler", CreationTimestamp: ago(2 * time.Hour)}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("node-1_abc")}},
			[]string{"Name", "Holder", "Age"}, []any{"kube-scheduler", "node-1_abc", "120m"}},
		{"event (core)", EventTable().WithClock(clock),
			&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "p.1"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", FieldPath: "spec.containers{c}"},
				Reason: "Pulled", Message: " done\n", Type: "Normal", Count: 3, FirstTimestamp: ago(10 * time.Minute), LastTimestamp: ago(time.Minute),
				Source: corev1.EventSource{Component: "kubelet", Host: "node-1"}},
			[]string{"Last Seen", "Type", "Reason", "Object", "Subobject/wide", "Source/wide", "Message", "First Seen/wide", "Count/wide", "Name/wide"},
			[]any{"60s", "Normal", "Pulled", "pod/p", "spec.containers{c}", "kubelet, node-1", "done", "10m", int64(3), "p.1"}},
		{"event (events.k8s.io singleton)", EventTable().WithClock(clock),
			&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "n.1"}, InvolvedObject: corev1.ObjectReference{Kind: "Node"},
				Reason: "Ready", Type: "Normal", EventTime: metav1.NewMicroTime(now.Add(-30 * time.Second)), ReportingController: "ctl"},
			nil, []any{"30s", "Normal", "Ready", "node", "", "ctl", "", "30s", int64(1), "n.1"}},
		{"event (series)", EventTable().WithClock(clock),
			&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "s.1"}, EventTime: metav1.NewMicroTime(now.Add(-time.Hour)),
				Series: &corev1.EventSeries{Count: 7, LastObservedTime: metav1.NewMicroTime(now.Add(-2 * time.Second))}, ReportingController: "ctl", ReportingInstance: "i"},
			nil, []any{"2s", "", "", "", "", "ctl, i", "", "60m", int64(7), "s.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := tt.conv.ConvertToTable(context.Background(), tt.obj, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.columns != nil {
				if diff := cmp.Diff(tt.columns, columnNames(table)); diff != "" {
					t.Errorf("columns (-want +got):\n%s", diff)
				}
			}
			if len(table.Rows) != 1 {
				t.Fatalf("rows = %d, want 1", len(table.Rows))
			}
			if diff := cmp.Diff(tt.cells, table.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
			if table.Rows[0].Object.Object != tt.obj {
				t.Errorf("row object = %v, want the printed object", table.Rows[0].Object.Object)
			}
			if len(table.Rows[0].Cells) != len(table.ColumnDefinitions) {
				t.Errorf("%d cells for %d columns", len(table.Rows[0].Cells), len(table.ColumnDefinitions))
			}
		})
	}
}

func TestListAndOptions(t *testing.T) {
	remaining := int64(4)
	list := &corev1.ConfigMapList{
		ListMeta: metav1.ListMeta{ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining},
		Items:    []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}},
	}
	conv := ConfigMapTable().WithClock(clock)
	table, err := conv.ConvertToTable(context.Background(), list, &metav1.TableOptions{NoHeaders: true})
	if err != nil {
		t.Fatal(err)
	}
	if table.ColumnDefinitions != nil {
		t.Errorf("columns = %v, want none with noHeaders", table.ColumnDefinitions)
	}
	if table.ResourceVersion != "42" || table.Continue != "tok" || table.RemainingItemCount == nil || *table.RemainingItemCount != 4 {
		t.Errorf("list meta = %+v", table.ListMeta)
	}
	if len(table.Rows) != 2 || table.Rows[1].Cells[0] != "b" || table.Rows[1].Object.Object != &list.Items[1] {
		t.Errorf("rows = %+v", table.Rows)
	}

	single, err := conv.ConvertToTable(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "7"}}, nil)
	if err != nil || single.ResourceVersion != "7" {
		t.Errorf("single object: rv=%q err=%v", single.ResourceVersion, err)
	}

	if _, err := conv.ConvertToTable(context.Background(), list, &metav1.ListOptions{}); err == nil ||
		err.Error() != "unrecognized type *v1.ListOptions for table options, can't display tabular output" {
		t.Errorf("bad options error = %v", err)
	}
	if _, err := conv.ConvertToTable(context.Background(), &corev1.Secret{}, nil); err == nil {
		t.Error("printing a secret with the config map table succeeded")
	}
}

func TestAge(t *testing.T) {
	tests := []struct {
		ts   metav1.Time
		want string
	}{
		{metav1.Time{}, "<unknown>"},
		{ago(59 * time.Second), "59s"},
		{ago(3*time.Hour + 10*time.Minute), "3h10m"},
		{ago(400 * 24 * time.Hour), "400d"},
	}
	for _, tt := range tests {
		if got := Age(tt.ts, now); got != tt.want {
			t.Errorf("Age(%v) = %q, want %q", tt.ts, got, tt.want)
		}
	}
}
