package definitions_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

func TestName(t *testing.T) {
	type local struct{}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[appsv1.Deployment](), "io.k8s.api.apps.v1.Deployment"},
		{reflect.TypeFor[*appsv1.Deployment](), "io.k8s.api.apps.v1.Deployment"},
		{reflect.TypeFor[metav1.ObjectMeta](), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		{reflect.TypeFor[resource.Quantity](), "io.k8s.apimachinery.pkg.api.resource.Quantity"},
		{reflect.TypeFor[intstr.IntOrString](), "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
		{reflect.TypeFor[runtime.RawExtension](), "io.k8s.apimachinery.pkg.runtime.RawExtension"},
		{reflect.TypeFor[local](), "com.github.kapi-dev.kapi.internal.endpoints.openapi.definitions_test.local"},
	} {
		if got := definitions.Name(tc.typ); got != tc.want {
			t.Errorf("Name(%v) = %q, want %q", tc.typ, got, tc.want)
		}
	}
}

// TestDefinitions checks parts of the definitions of a few types against
// what upstream publishes (api/openapi-spec/swagger.json and v3/*.json).
func TestDefinitions(t *testing.T) {
	b := definitions.NewBuilder(allScheme(t))
	roots := []reflect.Type{
		reflect.TypeFor[appsv1.Deployment](), reflect.TypeFor[appsv1.DaemonSet](), reflect.TypeFor[metav1.WatchEvent](),
		reflect.TypeFor[appsv1.ControllerRevision](), reflect.TypeFor[metav1.Duration](), reflect.TypeFor[metav1.MicroTime](),
	}
	docs := map[string]any{
		"v2": toJSON(t, b.V2(roots...)),
		"v3": toJSON(t, b.V3(roots...)),
	}
	const (
		deploy  = "io.k8s.api.apps.v1.Deployment"
		spec    = "io.k8s.api.apps.v1.DeploymentSpec"
		podSpec = "io.k8s.api.core.v1.PodSpec"
		meta    = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
		v2ref   = `"#/definitions/`
		v3ref   = `"#/components/schemas/`
	)
	strategyDoc, _ := json.Marshal(appsv1.DeploymentSpec{}.SwaggerDoc()["strategy"])
	for _, tc := range []struct {
		doc, def, path string
		want           string // JSON; "<absent>" when the path must not exist
	}{
		{"v2", deploy, "type", `"object"`},
		{"v2", deploy, "x-kubernetes-group-version-kind", `[{"group":"apps","kind":"Deployment","version":"v1"}]`},
		{"v2", deploy, "properties.apiVersion.type", `"string"`},
		{"v2", deploy, "properties.metadata.$ref", v2ref + meta + `"`},
		{"v2", deploy, "properties.metadata.default", "<absent>"},
		{"v2", deploy, "required", `["spec"]`}, // spec is +required in k8s.io/api v0.37
		{"v3", deploy, "properties.metadata", `{"allOf":[{"$ref":` + v3ref + meta + `"}],"default":{},"description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"}`},
		{"v3", deploy, "properties.kind.default", "<absent>"},

		{"v2", spec, "properties.strategy.description", string(strategyDoc)},
		{"v2", spec, "properties.strategy.x-kubernetes-patch-strategy", `"retainKeys"`},
		{"v2", spec, "properties.strategy.$ref", v2ref + `io.k8s.api.apps.v1.DeploymentStrategy"`},
		{"v3", spec, "properties.strategy.allOf", `[{"$ref":` + v3ref + `io.k8s.api.apps.v1.DeploymentStrategy"}]`},
		{"v3", spec, "properties.strategy.description", string(strategyDoc)},
		{"v3", spec, "properties.replicas", `{"description":` + mustJSON(t, appsv1.DeploymentSpec{}.SwaggerDoc()["replicas"]) + `,"format":"int32","type":"integer"}`},
		{"v3", spec, "properties.paused.default", "<absent>"},

		{"v2", podSpec, "properties.containers.x-kubernetes-patch-strategy", `"merge"`},
		{"v2", podSpec, "properties.containers.x-kubernetes-patch-merge-key", `"name"`},
		{"v2", podSpec, "properties.containers.x-kubernetes-list-type", `"map"`},
		{"v2", podSpec, "properties.containers.x-kubernetes-list-map-keys", `["name"]`},
		{"v2", podSpec, "properties.containers.items", `{"$ref":` + v2ref + `io.k8s.api.core.v1.Container"}`},
		{"v3", podSpec, "properties.containers.items", `{"allOf":[{"$ref":` + v3ref + `io.k8s.api.core.v1.Container"}],"default":{}}`},
		{"v3", podSpec, "properties.containers.x-kubernetes-list-map-keys", `["name"]`},
		{"v3", podSpec, "properties.nodeSelector", `{"additionalProperties":{"default":"","type":"string"},"description":` + mustJSON(t, corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]) + `,"type":"object","x-kubernetes-map-type":"atomic"}`},
		{"v2", podSpec, "properties.volumes.x-kubernetes-patch-strategy", `"merge,retainKeys"`},
		{"v2", podSpec, "required", `["containers"]`},

		{"v2", meta, "properties.labels.additionalProperties", `{"type":"string"}`},
		{"v3", meta, "properties.labels.additionalProperties", `{"default":"","type":"string"}`},
		{"v3", meta, "properties.finalizers.items", `{"default":"","type":"string"}`},
		{"v3", meta, "properties.finalizers.x-kubernetes-list-type", `"set"`},
		{"v3", meta, "properties.ownerReferences.x-kubernetes-list-map-keys", `["uid"]`},
		{"v3", meta, "properties.creationTimestamp.allOf", `[{"$ref":` + v3ref + `io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]`},
		{"v3", meta, "properties.creationTimestamp.default", "<absent>"}, // Time unmarshals itself: zero is null
		{"v3", meta, "properties.generation", `{"description":` + mustJSON(t, metav1.ObjectMeta{}.SwaggerDoc()["generation"]) + `,"format":"int64","type":"integer"}`},
		{"v3", meta, "required", "<absent>"},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference", "x-kubernetes-map-type", `"atomic"`},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference", "properties.uid.default", `""`},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry", "properties.fieldsV1.allOf", `[{"$ref":` + v3ref + `io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"}]`},

		{"v2", "io.k8s.apimachinery.pkg.api.resource.Quantity", "type", `"string"`},
		{"v2", "io.k8s.apimachinery.pkg.api.resource.Quantity", "format", "<absent>"},
		{"v3", "io.k8s.apimachinery.pkg.api.resource.Quantity", "oneOf", `[{"type":"string"},{"type":"number"}]`},
		{"v3", "io.k8s.apimachinery.pkg.api.resource.Quantity", "type", "<absent>"},
		{"v2", "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "type", `"string"`},
		{"v2", "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "format", `"int-or-string"`},
		{"v3", "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "oneOf", `[{"type":"integer"},{"type":"string"}]`},
		{"v3", "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "format", `"int-or-string"`},
		{"v3", "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "type", "<absent>"},
		{"v2", "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "type", `"string"`},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "format", `"date-time"`},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", "format", `"date-time"`},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.Duration", "type", `"string"`},
		{"v2", "io.k8s.apimachinery.pkg.runtime.RawExtension", "type", `"object"`},
		{"v2", "io.k8s.apimachinery.pkg.runtime.RawExtension", "properties", "<absent>"},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", "type", `"object"`},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", "properties", "<absent>"},

		{"v3", "io.k8s.api.apps.v1.DaemonSetSpec", "required", `["selector","template"]`},
		{"v3", "io.k8s.api.apps.v1.DaemonSetSpec", "properties.selector.default", "<absent>"}, // a pointer
		{"v3", "io.k8s.api.apps.v1.ControllerRevision", "properties.data", `{"allOf":[{"$ref":` + v3ref + `io.k8s.apimachinery.pkg.runtime.RawExtension"}],"description":"Data is the serialized representation of the state."}`},
		{"v3", "io.k8s.api.apps.v1.ControllerRevision", "properties.revision.default", `0`},
		{"v3", "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent", "required", `["type","object"]`},
	} {
		got, ok := lookup(docs[tc.doc], tc.def+"."+tc.path)
		if tc.want == "<absent>" {
			if ok {
				t.Errorf("%s %s.%s = %s, want absent", tc.doc, tc.def, tc.path, mustJSON(t, got))
			}
			continue
		}
		if !ok {
			t.Errorf("%s %s.%s is absent, want %s", tc.doc, tc.def, tc.path, tc.want)
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatalf("bad want %s: %v", tc.want, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %s.%s (-want +got):\n%s", tc.doc, tc.def, tc.path, diff)
		}
	}
}

// TestGroupVersionKinds checks that a type registered in many group
// versions lists them all, sorted, as upstream's definition namer does.
func TestGroupVersionKinds(t *testing.T) {
	b := definitions.NewBuilder(allScheme(t))
	doc := toJSON(t, b.V3(reflect.TypeFor[metav1.WatchEvent](), reflect.TypeFor[metav1.Status]()))
	got, _ := lookup(doc, "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent.x-kubernetes-group-version-kind")
	list, _ := got.([]any)
	if len(list) < 20 {
		t.Fatalf("WatchEvent lists %d group version kinds, want one per group version", len(list))
	}
	var keys []string
	for _, e := range list {
		m := e.(map[string]any)
		if m["kind"] != "WatchEvent" {
			t.Errorf("kind %v in WatchEvent's list", m["kind"])
		}
		keys = append(keys, m["group"].(string)+"/"+m["version"].(string))
	}
	for i := 1; i < len(keys); i++ {
		if keys[i-1] >= keys[i] {
			t.Errorf("not sorted or duplicated: %s before %s", keys[i-1], keys[i])
		}
	}
	if keys[0] != "/v1" {
		t.Errorf("first entry %s, want the core group /v1", keys[0])
	}
	status, _ := lookup(doc, "io.k8s.apimachinery.pkg.apis.meta.v1.Status.x-kubernetes-group-version-kind")
	if diff := cmp.Diff([]any{map[string]any{"group": "", "kind": "Status", "version": "v1"}}, status); diff != "" {
		t.Errorf("Status group version kinds (-want +got):\n%s", diff)
	}
}

// TestNoDefaultsInV2 checks v2 carries no default anywhere (kube-apiserver
// prunes them from /openapi/v2) and no allOf wrapping.
func TestNoDefaultsInV2(t *testing.T) {
	b := definitions.NewBuilder(allScheme(t))
	// names says v's keys are names (definitions, properties), not
	// schema keywords: a property may be called "default".
	var walk func(path string, v any, names bool)
	walk = func(path string, v any, names bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if !names && (k == "default" || k == "allOf") {
					t.Errorf("%s has %s", path, k)
				}
				walk(path+"."+k, e, !names && k == "properties")
			}
		case []any:
			for _, e := range v {
				walk(path+"[]", e, false)
			}
		}
	}
	walk("", toJSON(t, b.V2(b.Kinds()...)), true)
}

// TestConcurrentUse builds from several goroutines at once (run with
// -race) and checks every result is the same document.
func TestConcurrentUse(t *testing.T) {
	b := definitions.NewBuilder(allScheme(t))
	kinds := b.Kinds()
	const n = 4
	v2s, v3s := make([][]byte, n), make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			v2s[i], _ = json.Marshal(b.V2(kinds...))
			v3s[i], _ = json.Marshal(b.V3(kinds...))
			if _, err := b.TypeConverter(); err != nil {
				t.Errorf("TypeConverter: %v", err)
			}
		})
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if string(v2s[i]) != string(v2s[0]) || string(v3s[i]) != string(v3s[0]) {
			t.Errorf("build %d differs from build 0", i)
		}
	}
	first, _ := b.TypeConverter()
	second, _ := b.TypeConverter()
	if first != second {
		t.Error("TypeConverter built twice")
	}
}

func allScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// toJSON round-trips v through JSON, as a client reads the documents.
func toJSON(t testing.TB, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lookup follows a path of keys through decoded JSON; the first key is
// a definition name (which has dots of its own), the rest are split on
// dots.
func lookup(doc any, path string) (any, bool) {
	defs, _ := doc.(map[string]any)
	for name := range defs {
		rest, ok := strings.CutPrefix(path, name+".")
		if !ok {
			continue
		}
		cur := defs[name]
		for key := range strings.SplitSeq(rest, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[key]; !ok {
				return nil, false
			}
		}
		return cur, true
	}
	return nil, false
}
