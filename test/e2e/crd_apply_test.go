package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// describedWidgetCRD is a Widget CRD whose schema carries descriptions,
// for kubectl explain.
const describedWidgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a part made to order.
        properties:
          spec:
            type: object
            description: WidgetSpec is the desired state of a Widget.
            required: [size]
            properties:
              size:
                type: integer
                description: How many parts the widget has.
              color:
                type: string
                description: The paint on the widget.
`

// widgetManifest is a Widget named name with the YAML flow mapping spec.
func widgetManifest(name, spec string) string {
	return "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: " + name + "}\nspec: " + spec + "\n"
}

// TestCRDServerSideApply applies a custom resource server-side with two
// managers that conflict on a field.
func TestCRDServerSideApply(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	applyCRD(t, k, describedWidgetCRD, "widgets.example.com")
	r := kubectlRunner{t, k}

	mustHave(t, r.stdin(widgetManifest("w1", "{size: 2, color: red}"), "apply", "--server-side", "--field-manager=alice", "-f", "-"), "widget.example.com/w1 serverside-applied")
	out := r.fails(widgetManifest("w1", "{size: 4}"), "apply", "--server-side", "--field-manager=bob", "-f", "-")
	mustHave(t, out, "Apply failed with 1 conflict", `conflict with "alice"`, ".spec.size")
	mustHave(t, r.stdin(widgetManifest("w1", "{size: 4}"), "apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", "-"), "widget.example.com/w1 serverside-applied")
	if got := r.jsonpath("{.spec.size} {.spec.color}", "get", "widget", "w1"); got != "4 red" {
		t.Errorf("after the forced apply: %q, want 4 red", got)
	}
	owners := map[string]string{}
	managed := r.run("get", "widget", "w1", "--show-managed-fields", "-o",
		`jsonpath={range .metadata.managedFields[*]}{.manager}{"\t"}{.operation}{"\t"}{.fieldsV1}{"\n"}{end}`)
	for line := range strings.SplitSeq(strings.TrimSpace(managed), "\n") {
		manager, rest, _ := strings.Cut(line, "\t")
		owners[manager] += rest
	}
	if a := owners["alice"]; !strings.HasPrefix(a, "Apply\t") || !strings.Contains(a, "f:color") || strings.Contains(a, "f:size") {
		t.Errorf("alice's managed fields = %q, want an Apply entry with color and without size", a)
	}
	if b := owners["bob"]; !strings.HasPrefix(b, "Apply\t") || !strings.Contains(b, "f:size") {
		t.Errorf("bob's managed fields = %q, want an Apply entry with size", b)
	}
	mustHave(t, r.run("get", "widget", "w1", "-o", "yaml", "--show-managed-fields"), "manager: alice", "manager: bob", "operation: Apply")
}

// TestCRDKubectlApplyAndPatch applies a custom resource client-side and
// patches it with each patch type kubectl offers.
func TestCRDKubectlApplyAndPatch(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	applyCRD(t, k, describedWidgetCRD, "widgets.example.com")
	r := kubectlRunner{t, k}

	// The second apply of the same manifest is a no-op.
	mustHave(t, r.stdin(widgetManifest("w2", "{size: 1}"), "apply", "-f", "-"), "widget.example.com/w2 created")
	mustHave(t, r.stdin(widgetManifest("w2", "{size: 1}"), "apply", "-f", "-"), "widget.example.com/w2 unchanged")
	mustHave(t, r.stdin(widgetManifest("w2", "{size: 3}"), "apply", "-f", "-"), "widget.example.com/w2 configured")
	mustHave(t, r.jsonpath(`{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`, "get", "widget", "w2"), `"size":3`)

	// Custom resources have no strategic merge: upstream answers 415.
	out := r.fails("", "patch", "widget", "w2", "--type=strategic", "-p", `{"spec":{"size":5}}`)
	mustHave(t, out, "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
	_, err := dynamicFor(t, k, nil).Resource(gvr("example.com", "v1", "widgets")).Namespace("default").
		Patch(t.Context(), "w2", "application/strategic-merge-patch+json", []byte(`{"spec":{"size":5}}`), metav1.PatchOptions{})
	if statusCode(err) != http.StatusUnsupportedMediaType {
		t.Errorf("strategic merge patch: code %d %v, want 415", statusCode(err), err)
	}
	mustHave(t, r.run("patch", "widget", "w2", "--type=merge", "-p", `{"spec":{"color":"blue"}}`), "widget.example.com/w2 patched")
	mustHave(t, r.run("patch", "widget", "w2", "--type=json", "-p", `[{"op":"replace","path":"/spec/size","value":6}]`), "widget.example.com/w2 patched")
	if got := r.jsonpath("{.spec.size} {.spec.color} {.metadata.generation}", "get", "widget", "w2"); got != "6 blue 4" {
		t.Errorf("after merge and json patches: %q, want 6 blue 4", got)
	}
}

// TestCRDExplain checks that kubectl explain shows a custom resource's
// schema: descriptions, types and required fields.
func TestCRDExplain(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	applyCRD(t, k, describedWidgetCRD, "widgets.example.com")
	r := kubectlRunner{t, k}
	mustHave(t, r.run("explain", "widgets"), "GROUP:      example.com", "KIND:       Widget", "VERSION:    v1",
		"A Widget is a part made to order.", "spec\t<Object>")
	mustHave(t, r.run("explain", "widgets.spec"), "KIND:       Widget", "FIELD: spec <Object>",
		"WidgetSpec is the desired state of a Widget.",
		"color\t<string>", "The paint on the widget.",
		"size\t<integer> -required-", "How many parts the widget has.")
	mustHave(t, r.run("explain", "wg.spec.size"), "FIELD: size <integer>", "How many parts the widget has.")
}

// aggregatedDiscovery fetches /apis as an APIGroupDiscoveryList.
func aggregatedDiscovery(ctx context.Context, cs kubernetes.Interface) (*apidiscoveryv2.APIGroupDiscoveryList, error) {
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/apis").
		SetHeader("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").
		Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	if list.Kind != "APIGroupDiscoveryList" {
		return nil, fmt.Errorf("/apis answered kind %q, not an APIGroupDiscoveryList", list.Kind)
	}
	return &list, nil
}

// widgetsInAggregated describes the example.com widgets entry of list,
// or returns "" if the group is absent.
func widgetsInAggregated(list *apidiscoveryv2.APIGroupDiscoveryList) string {
	for _, g := range list.Items {
		if g.Name != "example.com" {
			continue
		}
		for _, v := range g.Versions {
			for _, res := range v.Resources {
				if res.Resource == "widgets" {
					kind := ""
					if res.ResponseKind != nil {
						kind = res.ResponseKind.Kind
					}
					return fmt.Sprintf("%s %s %s %v %v", v.Version, kind, res.Scope, res.ShortNames, res.Categories)
				}
			}
		}
		return "group without widgets"
	}
	return ""
}

// TestCRDDiscovery checks that a CRD's resource appears in legacy and
// aggregated discovery with its names, and that deleting the CRD removes
// the group from discovery and its endpoints.
func TestCRDDiscovery(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	applyCRD(t, k, describedWidgetCRD, "widgets.example.com")
	cs := k.Clientset()
	ctx := t.Context()

	lists, err := cs.Discovery().ServerPreferredResources()
	if err != nil {
		t.Fatalf("ServerPreferredResources: %v", err)
	}
	found := ""
	for _, l := range lists {
		if l.GroupVersion != "example.com/v1" {
			continue
		}
		for _, res := range l.APIResources {
			if res.Name == "widgets" {
				slices.Sort(res.Verbs)
				found = fmt.Sprintf("%s %s %v %v %v %v", res.Kind, res.SingularName, res.Namespaced, res.ShortNames, res.Categories, res.Verbs)
			}
		}
	}
	if want := "Widget widget true [wg] [all] [create delete deletecollection get list patch update watch]"; found != want {
		t.Errorf("legacy discovery of widgets: %q, want %q", found, want)
	}
	agg, err := aggregatedDiscovery(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := widgetsInAggregated(agg), "v1 Widget Namespaced [wg] [all]"; got != want {
		t.Errorf("aggregated discovery of widgets: %q, want %q", got, want)
	}

	r := kubectlRunner{t, k}
	r.stdin(widgetManifest("w1", "{size: 1}"), "create", "-f", "-")
	r.run("delete", "crd", "widgets.example.com")
	eventually(t, "example.com gone from discovery", func(ctx context.Context) (bool, error) {
		groups, err := cs.Discovery().ServerGroups()
		if err != nil {
			return false, err
		}
		for _, g := range groups.Groups {
			if g.Name == "example.com" {
				return false, nil
			}
		}
		agg, err := aggregatedDiscovery(ctx, cs)
		if err != nil {
			return false, err
		}
		return widgetsInAggregated(agg) == "", nil
	})
	for _, path := range []string{"/apis/example.com/v1/widgets", "/apis/example.com/v1/namespaces/default/widgets", "/apis/example.com/v1"} {
		err := cs.Discovery().RESTClient().Get().AbsPath(path).Do(ctx).Error()
		if statusCode(err) != http.StatusNotFound {
			t.Errorf("GET %s after the CRD was deleted: code %d %v, want 404", path, statusCode(err), err)
		}
	}
}
