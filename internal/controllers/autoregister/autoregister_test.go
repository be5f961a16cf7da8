package autoregister

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/fake"
	"k8s.io/kube-aggregator/pkg/client/informers/externalversions"
)

func apiService(name, mode string, group int32) *apiregistrationv1.APIService {
	s := localAPIService(schema.GroupVersion{Group: "apps", Version: "v1"}, priority{group, 15})
	if name != "" {
		s.Name = name
	}
	if mode != "" {
		s.Labels = map[string]string{ManagedLabel: mode}
	}
	return s
}

// newController returns a controller whose cache holds existing, with the
// onstart ones recorded as present at start.
func newController(t *testing.T, existing ...*apiregistrationv1.APIService) (*Controller, *fake.Clientset) {
	t.Helper()
	var objs []runtime.Object
	for _, s := range existing {
		objs = append(objs, s)
	}
	client := fake.NewSimpleClientset(objs...)
	informer := externalversions.NewSharedInformerFactory(client, 0).Apiregistration().V1().APIServices()
	c, err := New(informer, client.ApiregistrationV1(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.queue.ShutDown)
	for _, s := range existing {
		if err := informer.Informer().GetIndexer().Add(s); err != nil {
			t.Fatal(err)
		}
		if s.Labels[ManagedLabel] == manageOnStart {
			c.atStart[s.Name] = true
		}
	}
	client.ClearActions()
	return c, client
}

func verbs(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		out = append(out, a.GetVerb())
	}
	return out
}

func TestSync(t *testing.T) {
	tests := []struct {
		name     string
		existing []*apiregistrationv1.APIService
		onStart  bool // the desired object is synced on start, else always
		desired  bool
		want     []string
	}{
		{"missing, wanted on start", nil, true, true, []string{"create"}},
		{"missing, wanted always", nil, false, true, []string{"create"}},
		{"missing, not wanted", nil, true, false, nil},
		{"unlabelled is left alone", []*apiregistrationv1.APIService{apiService("", "", 1)}, true, true, nil},
		{"unlabelled, not wanted, is left alone", []*apiregistrationv1.APIService{apiService("", "", 1)}, false, false, nil},
		{"onstart present at start is updated", []*apiregistrationv1.APIService{apiService("", manageOnStart, 1)}, true, true, []string{"update"}},
		{"onstart present at start, not wanted, is deleted", []*apiregistrationv1.APIService{apiService("", manageOnStart, 1)}, true, false, []string{"delete"}},
		{"always, spec equal", []*apiregistrationv1.APIService{apiService("", manageContinuously, 17800)}, false, true, nil},
		{"always, spec differs", []*apiregistrationv1.APIService{apiService("", manageContinuously, 1)}, false, true, []string{"update"}},
		{"always, not wanted, is deleted", []*apiregistrationv1.APIService{apiService("", manageContinuously, 1)}, false, false, []string{"delete"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, client := newController(t, tt.existing...)
			if tt.desired {
				if tt.onStart {
					c.AddOnStart(apiService("", "", 17800))
				} else {
					c.Add(apiService("", "", 17800))
				}
			}
			if err := c.sync(context.Background(), "v1.apps"); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, verbs(client)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSyncOnStartOnlyOnce(t *testing.T) {
	c, client := newController(t, apiService("", manageOnStart, 1))
	c.AddOnStart(apiService("", "", 17800))
	ctx := context.Background()
	for range 2 {
		if err := c.sync(ctx, "v1.apps"); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"update"}, verbs(client)); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	created := client.Actions()[0].(clienttesting.UpdateAction).GetObject().(*apiregistrationv1.APIService)
	if created.Spec.GroupPriorityMinimum != 17800 || created.Labels[ManagedLabel] != manageOnStart {
		t.Errorf("updated to %+v labels %v", created.Spec, created.Labels)
	}
}

func TestBuiltinAPIService(t *testing.T) {
	got := BuiltinAPIService(schema.GroupVersion{Version: "v1"})
	want := apiregistrationv1.APIServiceSpec{Version: "v1", GroupPriorityMinimum: 18000, VersionPriority: 1}
	if got.Name != "v1." || !cmp.Equal(want, got.Spec) {
		t.Errorf("core APIService %s %+v", got.Name, got.Spec)
	}
	if BuiltinAPIService(schema.GroupVersion{Group: "apps", Version: "v1beta9"}) != nil {
		t.Error("a group version upstream has no priority for got an APIService")
	}
}

// recorder is a Registry that remembers what it was asked.
type recorder struct{ calls []string }

func (r *recorder) Add(s *apiregistrationv1.APIService) {
	r.calls = append(r.calls, fmt.Sprintf("add %s %d/%d", s.Name, s.Spec.GroupPriorityMinimum, s.Spec.VersionPriority))
}
func (r *recorder) Remove(name string) { r.calls = append(r.calls, "remove "+name) }

func crd(group string, served map[string]bool) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group}}
	c.Spec.Group = group
	for _, v := range []string{"v1", "v2"} {
		if s, ok := served[v]; ok {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: s})
		}
	}
	return c
}

func TestCRDSync(t *testing.T) {
	tests := []struct {
		name string
		crds []*apiextensionsv1.CustomResourceDefinition
		gv   schema.GroupVersion
		want []string
	}{
		{"served", []*apiextensionsv1.CustomResourceDefinition{crd("example.com", map[string]bool{"v1": true})},
			schema.GroupVersion{Group: "example.com", Version: "v1"}, []string{"add v1.example.com 1000/100"}},
		{"not served", []*apiextensionsv1.CustomResourceDefinition{crd("example.com", map[string]bool{"v1": false, "v2": true})},
			schema.GroupVersion{Group: "example.com", Version: "v1"}, []string{"remove v1.example.com"}},
		{"gone", nil, schema.GroupVersion{Group: "example.com", Version: "v1"}, []string{"remove v1.example.com"}},
		{"built-in group version", []*apiextensionsv1.CustomResourceDefinition{crd("apps", map[string]bool{"v1": true})},
			schema.GroupVersion{Group: "apps", Version: "v1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			informer := apiextensionsinformers.NewSharedInformerFactory(apiextensionsfake.NewSimpleClientset(), 0).Apiextensions().V1().CustomResourceDefinitions()
			r := &recorder{}
			c, err := NewCRDs(informer, r, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.queue.ShutDown)
			for _, obj := range tt.crds {
				if err := informer.Informer().GetIndexer().Add(obj); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.sync(context.Background(), tt.gv); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}
