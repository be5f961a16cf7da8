package customresourcedefinition

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	apiextensionsinstall "github.com/kapi-dev/kapi/internal/apis/apiextensions/install"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// jsonOptionsGetter stores objects as JSON: the CRD types have no
// protobuf encoding, so registrytest's getter cannot hold them.
type jsonOptionsGetter struct {
	scheme  *runtime.Scheme
	backend storage.Backend
}

func (g jsonOptionsGetter) GetRESTOptions(resource schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	codecs := serializer.NewCodecFactory(g.scheme)
	gv := apiextensionsv1.SchemeGroupVersion
	codec := codecs.CodecForVersions(json.NewSerializerWithOptions(json.DefaultMetaFactory, g.scheme, g.scheme, json.SerializerOptions{}), codecs.UniversalDecoder(gv), gv, gv)
	prefix := "/" + resource.Resource
	return generic.RESTOptions{
		ResourcePrefix: prefix,
		Storage: func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
			return g.backend.ForResource(storage.ResourceConfig{Codec: codec, NewFunc: newFunc, NewListFunc: newListFunc, ResourcePrefix: prefix})
		},
	}, nil
}

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	if err := apiextensionsinstall.Install(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

func newStorage(t *testing.T) (*runtime.Scheme, map[string]rest.Storage) {
	t.Helper()
	scheme := newScheme(t)
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	m, err := NewStorage(scheme, jsonOptionsGetter{scheme: scheme, backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	return scheme, m
}

var ctx = registrytest.NamespaceContext("")

// TestGolden creates testdata/crd.input.yaml (decoded and defaulted as a
// request body is) and compares what is stored with the JSON and YAML
// golden files; run with -update to rewrite them.
func TestGolden(t *testing.T) {
	scheme, m := newStorage(t)
	input, err := os.ReadFile(filepath.Join("testdata", "crd.input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	obj, _, err := codecs.UniversalDecoder(apiextensionsv1.SchemeGroupVersion).Decode(input, nil, &apiextensionsv1.CustomResourceDefinition{})
	if err != nil {
		t.Fatal(err)
	}
	created, err := m["customresourcedefinitions"].(rest.Creater).Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd := created.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
	crd.UID = registrytest.GoldenUID
	crd.CreationTimestamp = registrytest.GoldenTime
	crd.ResourceVersion = registrytest.GoldenResourceVersion
	for _, f := range []struct {
		ext  string
		opts json.SerializerOptions
	}{{"json", json.SerializerOptions{Pretty: true}}, {"yaml", json.SerializerOptions{Yaml: true}}} {
		var buf bytes.Buffer
		s := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, f.opts)
		if err := codecs.EncoderForVersion(s, apiextensionsv1.SchemeGroupVersion).Encode(crd, &buf); err != nil {
			t.Fatal(err)
		}
		registrytest.CompareGolden(t, filepath.Join("testdata", "crd.golden."+f.ext), buf.Bytes())
	}
	// The client's status is dropped; the storage version is recorded.
	if diff := cmp.Diff([]string{"v1"}, crd.Status.StoredVersions); diff != "" || len(crd.Status.Conditions) != 0 || crd.Generation != 1 {
		t.Errorf("status not reset: %+v generation %d", crd.Status, crd.Generation)
	}
}

func widget() *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}},
		},
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	return crd
}

func create(t *testing.T, m map[string]rest.Storage, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	out, err := m["customresourcedefinitions"].(rest.Creater).Create(ctx, crd, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*apiextensionsv1.CustomResourceDefinition)
}

func update(m map[string]rest.Storage, key string, crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
	out, _, err := m[key].(rest.Updater).Update(ctx, crd.Name, rest.DefaultUpdatedObjectInfo(crd), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return out.(*apiextensionsv1.CustomResourceDefinition), nil
}

func TestUpdateRules(t *testing.T) {
	_, m := newStorage(t)
	created := create(t, m, widget())

	// Main resource: status is kept, a spec change bumps generation, a new
	// storage version joins storedVersions.
	next := created.DeepCopy()
	next.Status.StoredVersions = []string{"bogus"}
	next.Spec.Versions[0].Storage = false
	next.Spec.Versions = append(next.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: true, Storage: true, Schema: next.Spec.Versions[0].Schema})
	updated, err := update(m, "customresourcedefinitions", next)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"v1", "v2"}, updated.Status.StoredVersions); diff != "" {
		t.Errorf("storedVersions (-want +got):\n%s", diff)
	}
	if updated.Generation != 2 {
		t.Errorf("generation = %d, want 2", updated.Generation)
	}

	// Status: the spec is kept, the status taken.
	st := updated.DeepCopy()
	st.Spec.Scope = apiextensionsv1.ClusterScoped
	st.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	st.Status.AcceptedNames = updated.Spec.Names
	afterStatus, err := update(m, "customresourcedefinitions/status", st)
	if err != nil {
		t.Fatal(err)
	}
	if afterStatus.Spec.Scope != apiextensionsv1.NamespaceScoped || !isEstablished(afterStatus) || afterStatus.Generation != 2 {
		t.Errorf("status write: scope %q established %v generation %d", afterStatus.Spec.Scope, isEstablished(afterStatus), afterStatus.Generation)
	}

	// Established: the scope is immutable.
	scoped := afterStatus.DeepCopy()
	scoped.Spec.Scope = apiextensionsv1.ClusterScoped
	_, err = update(m, "customresourcedefinitions", scoped)
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		t.Fatalf("scope change: got %v, want Invalid", err)
	}
	causes := status.Status().Details.Causes
	if len(causes) != 1 || causes[0].Field != "spec.scope" || causes[0].Message != "Invalid value: \"Cluster\": field is immutable" {
		t.Errorf("causes = %+v", causes)
	}
}

func TestCreateInvalid(t *testing.T) {
	_, m := newStorage(t)
	crd := widget()
	crd.Name = "gadgets.example.com"
	_, err := m["customresourcedefinitions"].(rest.Creater).Create(ctx, crd, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want Invalid", err)
	}
	want := `CustomResourceDefinition.apiextensions.k8s.io "gadgets.example.com" is invalid: metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group`
	if err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
}

func TestDiscovery(t *testing.T) {
	_, m := newStorage(t)
	store := m["customresourcedefinitions"]
	if got := store.(rest.ShortNamesProvider).ShortNames(); !cmp.Equal(got, []string{"crd", "crds"}) {
		t.Errorf("short names = %v", got)
	}
	if got := store.(rest.CategoriesProvider).Categories(); !cmp.Equal(got, []string{"api-extensions"}) {
		t.Errorf("categories = %v", got)
	}
	if store.(rest.Scoper).NamespaceScoped() {
		t.Error("CRDs are namespaced")
	}
}

func TestTable(t *testing.T) {
	crd := widget()
	crd.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	crd.Spec.Names.ShortNames = []string{"wg", "wgs"}
	crd.Spec.Versions = append(crd.Spec.Versions,
		apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1beta1", Served: true},
		apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1alpha1"})
	table, err := Table().ConvertToTable(context.Background(), &apiextensionsv1.CustomResourceDefinitionList{Items: []apiextensionsv1.CustomResourceDefinition{*crd}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"Name", "Scope", "Versions", "Created At", "Group", "Kind", "ShortNames", "Established"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := []any{"widgets.example.com", "Namespaced", "v1(storage),v1beta1", "2026-01-02T03:04:05Z", "example.com", "Widget", "wg,wgs", false}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
