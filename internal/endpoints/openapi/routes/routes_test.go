package routes

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func built(t testing.TB) map[string]opInfo {
	t.Helper()
	out := map[string]opInfo{}
	for gv, rs := range map[schema.GroupVersion][]Resource{appsV1: appsResources(), coreV1: coreResources(), rbacV1: rbacResources()} {
		for k, v := range v3Ops(Build(gv, rs).V3) {
			out[k] = v
		}
	}
	return out
}

func TestBuildOperations(t *testing.T) {
	const (
		apps = "/apis/apps/v1"
		ns   = "/namespaces/{namespace}"
		pod  = "/api/v1/namespaces/{namespace}/pods/{name}"
	)
	mutating := []string{"query:dryRun", "query:fieldManager", "query:fieldValidation"}
	patchTypes := []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"}
	tests := []struct {
		key, id, action, tag string
		gvk                  string // group/version/kind
		params, absent       []string
		// opParams must be the operation's own, not the path item's.
		opParams  []string
		body      []string
		responses []int
	}{
		{key: "GET " + apps + "/", id: "getAppsV1APIResources", tag: "apps_v1", responses: []int{200, 401}},
		{key: "GET " + apps + ns + "/deployments", id: "listAppsV1NamespacedDeployment", action: "list", gvk: "apps/v1/Deployment",
			params: []string{"path:namespace", "query:pretty", "query:watch", "query:labelSelector", "query:fieldSelector", "query:limit", "query:continue",
				"query:resourceVersion", "query:resourceVersionMatch", "query:sendInitialEvents", "query:timeoutSeconds", "query:allowWatchBookmarks"},
			absent: []string{"query:dryRun", "path:name"}, responses: []int{200, 401}},
		{key: "POST " + apps + ns + "/deployments", id: "createAppsV1NamespacedDeployment", action: "post", gvk: "apps/v1/Deployment",
			params: mutating, opParams: mutating, absent: []string{"query:force", "query:watch"}, body: []string{"*/*"}, responses: []int{200, 201, 202, 401}},
		{key: "DELETE " + apps + ns + "/deployments", id: "deleteAppsV1CollectionNamespacedDeployment", action: "deletecollection", gvk: "apps/v1/Deployment",
			params: []string{"query:dryRun", "query:gracePeriodSeconds", "query:propagationPolicy", "query:labelSelector", "query:ignoreStoreReadErrorWithClusterBreakingPotential"},
			absent: []string{"query:watch", "query:allowWatchBookmarks", "query:fieldValidation"}, body: []string{"*/*"}, responses: []int{200, 401}},
		{key: "GET " + apps + ns + "/deployments/{name}", id: "readAppsV1NamespacedDeployment", action: "get", gvk: "apps/v1/Deployment",
			params: []string{"path:name", "path:namespace", "query:pretty"}, absent: []string{"query:dryRun", "query:watch"}, responses: []int{200, 401}},
		{key: "PUT " + apps + ns + "/deployments/{name}", id: "replaceAppsV1NamespacedDeployment", action: "put", gvk: "apps/v1/Deployment",
			params: mutating, opParams: mutating, absent: []string{"query:force"}, body: []string{"*/*"}, responses: []int{200, 201, 401}},
		{key: "PATCH " + apps + ns + "/deployments/{name}", id: "patchAppsV1NamespacedDeployment", action: "patch", gvk: "apps/v1/Deployment",
			params: append([]string{"query:force"}, mutating...), opParams: append([]string{"query:force"}, mutating...), body: patchTypes, responses: []int{200, 201, 401}},
		{key: "DELETE " + apps + ns + "/deployments/{name}", id: "deleteAppsV1NamespacedDeployment", action: "delete", gvk: "apps/v1/Deployment",
			params: []string{"query:dryRun", "query:gracePeriodSeconds", "query:orphanDependents", "query:propagationPolicy"},
			absent: []string{"query:labelSelector", "query:fieldValidation"}, body: []string{"*/*"}, responses: []int{200, 202, 401}},
		{key: "GET " + apps + "/watch" + ns + "/deployments", id: "watchAppsV1NamespacedDeploymentList", action: "watchlist", gvk: "apps/v1/Deployment",
			params: []string{"path:namespace", "query:watch"}, responses: []int{200, 401}},
		{key: "GET " + apps + "/watch" + ns + "/deployments/{name}", id: "watchAppsV1NamespacedDeployment", action: "watch", gvk: "apps/v1/Deployment",
			params: []string{"path:namespace", "path:name"}, responses: []int{200, 401}},
		{key: "GET " + apps + "/deployments", id: "listAppsV1DeploymentForAllNamespaces", action: "list", gvk: "apps/v1/Deployment",
			params: []string{"query:watch"}, absent: []string{"path:namespace"}, responses: []int{200, 401}},
		{key: "GET " + apps + "/watch/deployments", id: "watchAppsV1DeploymentListForAllNamespaces", action: "watchlist", gvk: "apps/v1/Deployment",
			absent: []string{"path:namespace"}, responses: []int{200, 401}},
		{key: "GET " + apps + ns + "/deployments/{name}/status", id: "readAppsV1NamespacedDeploymentStatus", action: "get", gvk: "apps/v1/Deployment",
			params: []string{"path:name"}, responses: []int{200, 401}},
		{key: "PATCH " + apps + ns + "/deployments/{name}/status", id: "patchAppsV1NamespacedDeploymentStatus", action: "patch", gvk: "apps/v1/Deployment",
			opParams: append([]string{"query:force"}, mutating...), body: patchTypes, responses: []int{200, 201, 401}},
		{key: "PUT " + apps + ns + "/deployments/{name}/scale", id: "replaceAppsV1NamespacedDeploymentScale", action: "put", gvk: "autoscaling/v1/Scale",
			opParams: mutating, absent: []string{"query:force"}, body: []string{"*/*"}, responses: []int{200, 201, 401}},
		{key: "PATCH " + apps + ns + "/deployments/{name}/scale", id: "patchAppsV1NamespacedDeploymentScale", action: "patch", gvk: "autoscaling/v1/Scale",
			opParams: append([]string{"query:force"}, mutating...), body: patchTypes, responses: []int{200, 201, 401}},

		{key: "GET /api/v1/", id: "getCoreV1APIResources", tag: "core_v1", responses: []int{200, 401}},
		{key: "GET /api/v1/namespaces/{namespace}/pods", id: "listCoreV1NamespacedPod", action: "list", tag: "core_v1", gvk: "/v1/Pod", responses: []int{200, 401}},
		{key: "GET /api/v1/pods", id: "listCoreV1PodForAllNamespaces", action: "list", gvk: "/v1/Pod", responses: []int{200, 401}},
		{key: "GET /api/v1/watch/pods", id: "watchCoreV1PodListForAllNamespaces", action: "watchlist", gvk: "/v1/Pod", responses: []int{200, 401}},
		{key: "DELETE " + pod, id: "deleteCoreV1NamespacedPod", action: "delete", gvk: "/v1/Pod", body: []string{"*/*"}, responses: []int{200, 202, 401}},
		{key: "GET " + pod + "/exec", id: "connectCoreV1GetNamespacedPodExec", action: "connect", gvk: "/v1/PodExecOptions",
			params: []string{"query:command", "query:container", "query:stdin", "query:stdout", "query:stderr", "query:tty", "path:name", "path:namespace"},
			absent: []string{"query:pretty"}, responses: []int{200, 401}},
		{key: "POST " + pod + "/exec", id: "connectCoreV1PostNamespacedPodExec", action: "connect", gvk: "/v1/PodExecOptions",
			params: []string{"query:command"}, absent: []string{"query:dryRun"}, responses: []int{200, 401}},
		{key: "GET " + pod + "/proxy", id: "connectCoreV1GetNamespacedPodProxy", action: "connect", gvk: "/v1/PodProxyOptions",
			params: []string{"query:path"}, absent: []string{"path:path"}, responses: []int{200, 401}},
		{key: "PUT " + pod + "/proxy/{path}", id: "connectCoreV1PutNamespacedPodProxyWithPath", action: "connect", gvk: "/v1/PodProxyOptions",
			params: []string{"path:path", "query:path", "path:name"}, responses: []int{200, 401}},
		{key: "GET " + pod + "/log", id: "readCoreV1NamespacedPodLog", action: "get", gvk: "/v1/Pod",
			params: []string{"query:container", "query:follow", "query:tailLines", "query:previous", "query:pretty"}, absent: []string{"query:sinceTime"}, responses: []int{200, 401}},
		{key: "POST " + pod + "/binding", id: "createCoreV1NamespacedPodBinding", action: "post", gvk: "/v1/Binding",
			params: mutating, body: []string{"*/*"}, responses: []int{200, 201, 202, 401}},
		{key: "POST " + pod + "/eviction", id: "createCoreV1NamespacedPodEviction", action: "post", gvk: "policy/v1/Eviction",
			params: mutating, body: []string{"*/*"}, responses: []int{200, 201, 202, 401}},
		{key: "POST /api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", id: "createCoreV1NamespacedServiceAccountToken", action: "post",
			gvk: "authentication.k8s.io/v1/TokenRequest", params: append([]string{"path:name", "path:namespace"}, mutating...), absent: []string{"query:force"},
			body: []string{"*/*"}, responses: []int{200, 201, 202, 401}},
		{key: "GET /api/v1/namespaces", id: "listCoreV1Namespace", action: "list", gvk: "/v1/Namespace", absent: []string{"path:namespace"}, responses: []int{200, 401}},
		{key: "PUT /api/v1/namespaces/{name}/finalize", id: "replaceCoreV1NamespaceFinalize", action: "put", gvk: "/v1/Namespace",
			params: append([]string{"path:name"}, mutating...), absent: []string{"path:namespace"}, body: []string{"*/*"}, responses: []int{200, 201, 401}},
		{key: "GET /api/v1/nodes/{name}/proxy", id: "connectCoreV1GetNodeProxy", action: "connect", gvk: "/v1/NodeProxyOptions",
			params: []string{"path:name", "query:path"}, absent: []string{"path:namespace"}, responses: []int{200, 401}},
		{key: "DELETE /api/v1/nodes/{name}/proxy/{path}", id: "connectCoreV1DeleteNodeProxyWithPath", action: "connect", gvk: "/v1/NodeProxyOptions",
			params: []string{"path:path"}, responses: []int{200, 401}},

		{key: "GET /apis/rbac.authorization.k8s.io/v1/clusterroles", id: "listRbacAuthorizationV1ClusterRole", action: "list", tag: "rbacAuthorization_v1",
			gvk: "rbac.authorization.k8s.io/v1/ClusterRole", absent: []string{"path:namespace"}, responses: []int{200, 401}},
		{key: "DELETE /apis/rbac.authorization.k8s.io/v1/clusterroles", id: "deleteRbacAuthorizationV1CollectionClusterRole", action: "deletecollection",
			gvk: "rbac.authorization.k8s.io/v1/ClusterRole", body: []string{"*/*"}, responses: []int{200, 401}},
	}
	ops := built(t)
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			op, ok := ops[tt.key]
			if !ok {
				t.Fatalf("no operation %s", tt.key)
			}
			if op.id != tt.id {
				t.Errorf("operation id %q, want %q", op.id, tt.id)
			}
			if op.action != tt.action {
				t.Errorf("x-kubernetes-action %q, want %q", op.action, tt.action)
			}
			if tt.tag != "" && op.tag != tt.tag {
				t.Errorf("tags %q, want %q", op.tag, tt.tag)
			}
			gvk := ""
			if op.gvk != nil {
				gvk = op.gvk["group"].(string) + "/" + op.gvk["version"].(string) + "/" + op.gvk["kind"].(string)
			}
			if gvk != tt.gvk {
				t.Errorf("x-kubernetes-group-version-kind %q, want %q", gvk, tt.gvk)
			}
			for _, p := range tt.params {
				if !slices.Contains(op.params, p) {
					t.Errorf("parameter %s missing from %v", p, op.params)
				}
			}
			for _, p := range tt.opParams {
				if !slices.Contains(op.opParams, p) {
					t.Errorf("parameter %s not on the operation itself: %v", p, op.opParams)
				}
			}
			for _, p := range tt.absent {
				if slices.Contains(op.params, p) {
					t.Errorf("parameter %s should not be there: %v", p, op.params)
				}
			}
			if !slices.Equal(op.body, tt.body) {
				t.Errorf("request body media types %v, want %v", op.body, tt.body)
			}
			if !slices.Equal(op.responses, tt.responses) {
				t.Errorf("responses %v, want %v", op.responses, tt.responses)
			}
		})
	}
}

// TestForceOnlyOnPatch: force is an apply option, on no other verb.
func TestForceOnlyOnPatch(t *testing.T) {
	n := 0
	for key, op := range built(t) {
		has := slices.Contains(op.params, "query:force")
		if has != (op.action == "patch") {
			t.Errorf("%s (%s): force parameter present %v", key, op.action, has)
		}
		if op.action == "patch" {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no patch operations built")
	}
}

func TestBuildPaths(t *testing.T) {
	want := []string{
		"/apis/apps/v1/",
		"/apis/apps/v1/deployments",
		"/apis/apps/v1/namespaces/{namespace}/deployments",
		"/apis/apps/v1/namespaces/{namespace}/deployments/{name}",
		"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
		"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status",
		"/apis/apps/v1/watch/deployments",
		"/apis/apps/v1/watch/namespaces/{namespace}/deployments",
		"/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}",
	}
	p := Build(appsV1, appsResources())
	for name, keys := range map[string][]string{"v2": keysOf(p.V2), "v3": keysOf(p.V3)} {
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("%s paths (-want +got):\n%s", name, diff)
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestV2MatchesV3: both renderings carry the same operations.
func TestV2MatchesV3(t *testing.T) {
	for gv, rs := range map[schema.GroupVersion][]Resource{appsV1: appsResources(), coreV1: coreResources()} {
		p := Build(gv, rs)
		v3 := map[string]string{}
		for k, op := range v3Ops(p.V3) {
			v3[k] = op.id + " " + op.action
		}
		if diff := cmp.Diff(v3, v2Ops(p.V2)); diff != "" {
			t.Errorf("%s: v2 operations differ from v3 (-v3 +v2):\n%s", gv, diff)
		}
	}
}

func TestResponses(t *testing.T) {
	const pod = "/api/v1/namespaces/{namespace}/pods/{name}"
	tests := []struct {
		path, method string
		code         int
		want         string // $ref, or "string"
	}{
		{pod, "delete", 200, "#/components/schemas/io.k8s.api.core.v1.Pod"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "delete", 202, "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments", "delete", 200, "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments", "get", 200, "#/components/schemas/io.k8s.api.apps.v1.DeploymentList"},
		{"/apis/apps/v1/watch/namespaces/{namespace}/deployments", "get", 200, "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "put", 201, "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"},
		{"/apis/apps/v1/", "get", 200, "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList"},
		{pod + "/log", "get", 200, "string"},
		{pod + "/exec", "post", 200, "string"},
	}
	docs := map[string]map[string]any{}
	for gv, rs := range map[string][]Resource{"apps": appsResources(), "core": coreResources()} {
		p := Build(map[string]schema.GroupVersion{"apps": appsV1, "core": coreV1}[gv], rs)
		b, err := json.Marshal(p.V3)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		docs[gv] = m
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			doc := docs["core"]
			if strings.HasPrefix(tt.path, "/apis/apps") {
				doc = docs["apps"]
			}
			var got []string
			resp := dig(doc, tt.path, tt.method, "responses", itoa(tt.code), "content")
			if resp == nil {
				t.Fatalf("no response %d", tt.code)
			}
			for mt, v := range resp.(map[string]any) {
				s := v.(map[string]any)["schema"].(map[string]any)
				ref, _ := s["$ref"].(string)
				if ref == "" {
					ref, _ = s["type"].(string)
				}
				if ref != tt.want {
					got = append(got, mt+": "+ref)
				}
			}
			if len(got) > 0 {
				t.Errorf("answers %v, want %s for every media type", got, tt.want)
			}
		})
	}
}

func dig(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestBuildTypes(t *testing.T) {
	tests := []struct {
		name      string
		gv        schema.GroupVersion
		resources []Resource
		want      []reflect.Type
	}{
		{"every verb", appsV1, appsResources(), []reflect.Type{refAPIResourceList, refStatus, refDeleteOptions, refPatch, refWatchEvent}},
		{"create only", coreV1, []Resource{subresource(coreV1, "serviceaccounts/token", true, []string{"create"}, coreV1.WithKind("TokenRequest"))},
			[]reflect.Type{refAPIResourceList}},
		{"read only", coreV1, []Resource{{GroupVersion: coreV1, APIResource: metav1.APIResource{Name: "componentstatuses", Verbs: []string{"get", "list"}},
			Kind: coreV1.WithKind("ComponentStatus"), Object: "io.k8s.api.core.v1.ComponentStatus", List: "io.k8s.api.core.v1.ComponentStatusList"}},
			[]reflect.Type{refAPIResourceList}},
		{"none", coreV1, nil, []reflect.Type{refAPIResourceList}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(tt.gv, tt.resources).Types
			if !slices.Equal(got, tt.want) {
				t.Errorf("Types %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBuildDeterministic: the order of the resources does not matter.
func TestBuildDeterministic(t *testing.T) {
	rs := coreResources()
	doc := func(p Paths) ([]byte, error) { return json.Marshal([]any{p.V2, p.V3, fmt.Sprint(p.Types)}) }
	want, err := doc(Build(coreV1, rs))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		shuffled := slices.Clone(rs)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got, err := doc(Build(coreV1, shuffled))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatal("the document depends on the order of the resources")
		}
	}
}

// TestOperationIDsUnique: upstream refuses a document with two
// operations of one id; so do clients generated from it.
func TestOperationIDsUnique(t *testing.T) {
	for _, tt := range documentCases {
		seen := map[string]string{}
		for key, op := range v3Ops(Build(tt.gv, tt.resources()).V3) {
			if other, ok := seen[op.id]; ok {
				t.Errorf("%s: %s and %s share operation id %s", tt.name, key, other, op.id)
			}
			seen[op.id] = key
		}
	}
}
