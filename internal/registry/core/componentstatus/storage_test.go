package componentstatus

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

type recorder struct{ warnings []string }

func (r *recorder) AddWarning(_, text string) { r.warnings = append(r.warnings, text) }

func newREST(t *testing.T) *REST {
	t.Helper()
	s, err := NewStorage(nil, nil, Options{Probes: map[string]func(context.Context) error{
		"etcd-0":    func(context.Context) error { return nil },
		"scheduler": func(context.Context) error { return errors.New("connection refused") },
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s["componentstatuses"].(*REST)
}

func TestGetAndList(t *testing.T) {
	r := newREST(t)
	rec := &recorder{}
	ctx := warning.WithRecorder(context.Background(), rec)

	obj, err := r.Get(ctx, "etcd-0", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: "ok"}}
	if diff := cmp.Diff(want, obj.(*corev1.ComponentStatus).Conditions); diff != "" {
		t.Errorf("etcd-0 (-want +got):\n%s", diff)
	}
	if _, err := r.Get(ctx, "missing", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("missing: %v, want NotFound", err)
	}

	list, err := r.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items := list.(*corev1.ComponentStatusList).Items
	if len(items) != 2 || items[0].Name != "etcd-0" || items[1].Name != "scheduler" {
		t.Fatalf("items = %+v", items)
	}
	wantBad := []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Error: "connection refused"}}
	if diff := cmp.Diff(wantBad, items[1].Conditions); diff != "" {
		t.Errorf("scheduler (-want +got):\n%s", diff)
	}
	if len(rec.warnings) != 3 || rec.warnings[0] != "v1 ComponentStatus is deprecated in v1.19+" {
		t.Errorf("warnings = %v", rec.warnings)
	}

	selected, err := r.List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "scheduler")})
	if err != nil {
		t.Fatal(err)
	}
	if items := selected.(*corev1.ComponentStatusList).Items; len(items) != 1 || items[0].Name != "scheduler" {
		t.Errorf("selected %+v", items)
	}

	table, err := r.ConvertToTable(ctx, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"scheduler", "Unhealthy", "", "connection refused"}, table.Rows[1].Cells); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"etcd-0", "Healthy", "ok", ""}, table.Rows[0].Cells); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
}

// TestReadOnly: only get and list are served.
func TestReadOnly(t *testing.T) {
	var s rest.Storage = newREST(t)
	if _, ok := s.(rest.Creater); ok {
		t.Error("componentstatuses must not be creatable")
	}
	if _, ok := s.(rest.Updater); ok {
		t.Error("componentstatuses must not be updatable")
	}
	if _, ok := s.(rest.GracefulDeleter); ok {
		t.Error("componentstatuses must not be deletable")
	}
	if r := s.(*REST); r.NamespaceScoped() || r.ShortNames()[0] != "cs" {
		t.Errorf("scope/short names wrong")
	}
}
