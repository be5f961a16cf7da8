package apiservice

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/apps/appstest"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) (*runtime.Scheme, map[string]rest.Storage, context.Context) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	s, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewStorage: %v", err)
	}
	return scheme, s, registrytest.NamespaceContext("")
}

func remote() *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "wardle.example.com", Version: "v1alpha1",
			GroupPriorityMinimum: 1000, VersionPriority: 15,
			Service:  &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api"},
			CABundle: []byte("-----BEGIN CERTIFICATE-----"),
		},
	}
}

func local() *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.apps"},
		Spec:       apiregistrationv1.APIServiceSpec{Group: "apps", Version: "v1", GroupPriorityMinimum: 17800, VersionPriority: 15},
	}
}

func TestGolden(t *testing.T) {
	scheme, s, _ := newStorage(t)
	obj := registrytest.Golden(t, scheme, s["apiservices"].(rest.Creater), "testdata", "remote")
	if got := obj.(*apiregistrationv1.APIService).Spec.Service.Port; got == nil || *got != 443 {
		t.Errorf("service port = %v, want the default 443", got)
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name   string
		base   func() *apiregistrationv1.APIService
		mutate func(*apiregistrationv1.APIService)
		want   []string
	}{
		{"name is not version.group", remote, func(s *apiregistrationv1.APIService) { s.Name = "wardle" },
			[]string{"metadata.name FieldValueInvalid"}},
		{"name with a slash", remote, func(s *apiregistrationv1.APIService) { s.Name = "v1/x" },
			[]string{"metadata.name FieldValueInvalid"}},
		{"empty group for v2", local, func(s *apiregistrationv1.APIService) { s.Name, s.Spec.Group, s.Spec.Version = "v2.", "", "v2" },
			[]string{"spec.group FieldValueRequired"}},
		{"group not a subdomain", local, func(s *apiregistrationv1.APIService) { s.Name, s.Spec.Group = "v1.Apps_", "Apps_" },
			[]string{"spec.group FieldValueInvalid"}},
		{"version not a label", local, func(s *apiregistrationv1.APIService) { s.Name, s.Spec.Version = "1v.apps", "1v" },
			[]string{"spec.version FieldValueInvalid"}},
		{"group priority 0", local, func(s *apiregistrationv1.APIService) { s.Spec.GroupPriorityMinimum = 0 },
			[]string{"spec.groupPriorityMinimum FieldValueInvalid"}},
		{"group priority over 20000", local, func(s *apiregistrationv1.APIService) { s.Spec.GroupPriorityMinimum = 20001 },
			[]string{"spec.groupPriorityMinimum FieldValueInvalid"}},
		{"version priority over 1000", local, func(s *apiregistrationv1.APIService) { s.Spec.VersionPriority = 1001 },
			[]string{"spec.versionPriority FieldValueInvalid"}},
		{"local with caBundle and insecure", local, func(s *apiregistrationv1.APIService) {
			s.Spec.CABundle, s.Spec.InsecureSkipTLSVerify = []byte("x"), true
		}, []string{"spec.caBundle FieldValueInvalid", "spec.insecureSkipTLSVerify FieldValueInvalid"}},
		{"service without namespace and name", remote, func(s *apiregistrationv1.APIService) {
			s.Spec.Service.Namespace, s.Spec.Service.Name = "", ""
		}, []string{"spec.service.name FieldValueRequired", "spec.service.namespace FieldValueRequired"}},
		{"bad port", remote, func(s *apiregistrationv1.APIService) { s.Spec.Service.Port = ptr.To[int32](70000) },
			[]string{"spec.service.port FieldValueInvalid"}},
		{"caBundle and insecure", remote, func(s *apiregistrationv1.APIService) { s.Spec.InsecureSkipTLSVerify = true },
			[]string{"spec.insecureSkipTLSVerify FieldValueInvalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			obj := tt.base()
			tt.mutate(obj)
			_, err := appstest.Create(ctx, scheme, s["apiservices"], obj)
			if diff := cmp.Diff(tt.want, appstest.Causes(t, err)); diff != "" {
				t.Errorf("causes (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestCreateStatus(t *testing.T) {
	tests := []struct {
		name string
		obj  *apiregistrationv1.APIService
		want []apiregistrationv1.APIServiceCondition
	}{
		{"local is available", local(), []apiregistrationv1.APIServiceCondition{{
			Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue,
			Reason: "Local", Message: "Local APIServices are always available",
		}}},
		{"remote starts without conditions", remote(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			tt.obj.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: "Available", Status: "False", Reason: "Mine"}}
			out, err := appstest.Create(ctx, scheme, s["apiservices"], tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*apiregistrationv1.APIService).Status.Conditions
			for i := range got {
				got[i].LastTransitionTime = metav1.Time{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUpdates(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	created, err := appstest.Create(ctx, scheme, s["apiservices"], remote())
	if err != nil {
		t.Fatal(err)
	}
	// The main resource ignores status.
	upd := created.DeepCopyObject().(*apiregistrationv1.APIService)
	upd.Spec.VersionPriority = 20
	upd.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: "Available", Status: "True"}}
	out, err := appstest.Update(ctx, s["apiservices"], upd.Name, upd)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*apiregistrationv1.APIService)
	if got.Spec.VersionPriority != 20 || len(got.Status.Conditions) != 0 {
		t.Errorf("update stored versionPriority=%d conditions=%v", got.Spec.VersionPriority, got.Status.Conditions)
	}
	// The status subresource takes status only.
	st := got.DeepCopy()
	st.Spec.VersionPriority = 30
	st.Labels = map[string]string{"x": "y"}
	st.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: "Available", Status: "False", Reason: "MissingEndpoints"}}
	out, err = appstest.Update(ctx, s["apiservices/status"], st.Name, st)
	if err != nil {
		t.Fatal(err)
	}
	got = out.(*apiregistrationv1.APIService)
	if got.Spec.VersionPriority != 20 || got.Labels != nil || len(got.Status.Conditions) != 1 {
		t.Errorf("status update stored versionPriority=%d labels=%v conditions=%v", got.Spec.VersionPriority, got.Labels, got.Status.Conditions)
	}
	bad := got.DeepCopy()
	bad.Status.Conditions[0].Status = "Maybe"
	_, err = appstest.Update(ctx, s["apiservices/status"], bad.Name, bad)
	if diff := cmp.Diff([]string{"status.conditions[0].status FieldValueNotSupported"}, appstest.Causes(t, err)); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	// Updates name the resourceVersion they replace.
	noRV := got.DeepCopy()
	noRV.ResourceVersion = ""
	if _, err := appstest.Update(ctx, s["apiservices"], noRV.Name, noRV); err == nil {
		t.Error("an update without resourceVersion succeeded")
	}
}

func TestTable(t *testing.T) {
	unavailable := remote()
	unavailable.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: "Available", Status: "False", Reason: "MissingEndpoints"}}
	available := local()
	available.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: "Available", Status: "True", Reason: "Local"}}
	tests := []struct {
		obj            *apiregistrationv1.APIService
		service, avail string
	}{
		{remote(), "wardle/api", "Unknown"},
		{unavailable, "wardle/api", "False (MissingEndpoints)"},
		{available, "Local", "True"},
	}
	for _, tt := range tests {
		table, err := Table().ConvertToTable(context.Background(), tt.obj, nil)
		if err != nil {
			t.Fatal(err)
		}
		names, _ := appstest.ColumnNames(table)
		if diff := cmp.Diff([]string{"Name", "Service", "Available", "Age"}, names); diff != "" {
			t.Errorf("columns (-want +got):\n%s", diff)
		}
		row := table.Rows[0].Cells
		if row[1] != tt.service || row[2] != tt.avail {
			t.Errorf("%s: service %v available %v, want %s %s", tt.obj.Name, row[1], row[2], tt.service, tt.avail)
		}
	}
}
