package controlplane

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	clientretry "k8s.io/client-go/util/retry"
)

const protobufType = "application/vnd.kubernetes.protobuf"

// protobufCRD is a small namespaced CRD.
func protobufCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.proto.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "proto.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Minimum: new(float64(1))},
						}},
					},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
}

// TestCRDProtobufClientset drives CustomResourceDefinitions through the
// generated apiextensions clientset configured for protobuf, as the
// upstream e2e framework and many operators build it: create, update,
// status update, watch and delete.
func TestCRDProtobufClientset(t *testing.T) {
	cs := protobufCRDClient(t, startServer(t, "memory"))
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	w, err := crds.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	created, err := crds.Create(ctx, protobufCRD(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	// Upstream's defaults ran: singular and list kind, no conversion.
	if created.Spec.Names.Singular != "gadget" || created.Spec.Names.ListKind != "GadgetList" ||
		created.Spec.Conversion == nil || created.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("create: defaults missing: names %+v, conversion %+v", created.Spec.Names, created.Spec.Conversion)
	}

	err = clientretry.RetryOnConflict(clientretry.DefaultRetry, func() error {
		cur, err := crds.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Names.Categories = []string{"proto"}
		updated, err := crds.Update(ctx, cur, metav1.UpdateOptions{})
		if err == nil && len(updated.Spec.Names.Categories) != 1 {
			t.Errorf("update: categories %v, want [proto]", updated.Spec.Names.Categories)
		}
		return err
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}

	err = clientretry.RetryOnConflict(clientretry.DefaultRetry, func() error {
		cur, err := crds.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Status.Conditions = append(cur.Status.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{
			Type: "ProtobufClient", Status: apiextensionsv1.ConditionTrue, Reason: "Tested",
			LastTransitionTime: metav1.Now(),
		})
		updated, err := crds.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		if err == nil && !hasCondition(updated, "ProtobufClient") {
			t.Errorf("status update: conditions %+v lack ProtobufClient", updated.Status.Conditions)
		}
		return err
	})
	if err != nil {
		t.Fatalf("status update: %v", err)
	}

	if err := crds.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	seen := map[watch.EventType]bool{}
	for !seen[watch.Deleted] {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed early; saw %v", seen)
			}
			if ev.Type == watch.Error {
				t.Fatalf("watch error: %v", apierrors.FromObject(ev.Object))
			}
			crd, isCRD := ev.Object.(*apiextensionsv1.CustomResourceDefinition)
			if !isCRD {
				t.Fatalf("watch event %s carries %T", ev.Type, ev.Object)
			}
			if crd.Name == created.Name {
				seen[ev.Type] = true
			}
		case <-ctx.Done():
			t.Fatalf("no DELETED event; saw %v", seen)
		}
	}
	if !seen[watch.Added] || !seen[watch.Modified] {
		t.Errorf("watch events %v, want ADDED, MODIFIED and DELETED", seen)
	}
	if _, err := crds.Get(ctx, created.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}
}

// TestCRDServedInProtobuf asks for CRDs in protobuf only: the answer is
// protobuf, not a fallback to JSON (a clientset accepts both, so it would
// not notice).
func TestCRDServedInProtobuf(t *testing.T) {
	cs := protobufCRDClient(t, startServer(t, "memory"))
	ctx := context.Background()
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, protobufCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	for _, path := range []string{
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.proto.example.com",
	} {
		res := cs.ApiextensionsV1().RESTClient().Get().AbsPath(path).
			SetHeader("Accept", protobufType).Do(ctx)
		var status int
		res.StatusCode(&status)
		var contentType string
		res.ContentType(&contentType)
		if err := res.Error(); err != nil || status != http.StatusOK || contentType != protobufType {
			t.Errorf("GET %s in protobuf: status %d, content type %q, err %v", path, status, contentType, err)
		}
	}
}

// protobufCRDClient is the apiextensions clientset of s, sending protobuf.
func protobufCRDClient(t *testing.T, s *benchServer) apiextensionsclient.Interface {
	t.Helper()
	cfg := rest.CopyConfig(s.restCfg)
	cfg.ContentType = protobufType
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func hasCondition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return true
		}
	}
	return false
}

// TestCRDOpenAPIAndApply checks the published OpenAPI of
// apiextensions.k8s.io/v1 names the CRD types as upstream does, with
// upstream's list markers, and that server-side apply (which builds on
// those definitions) creates and updates a CRD.
func TestCRDOpenAPIAndApply(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := apiextensionsclient.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	raw, err := cs.ApiextensionsV1().RESTClient().Get().AbsPath("/openapi/v3/apis/apiextensions.k8s.io/v1").DoRaw(ctx)
	if err != nil {
		t.Fatalf("openapi v3: %v", err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					ListType string   `json:"x-kubernetes-list-type"`
					MapKeys  []string `json:"x-kubernetes-list-map-keys"`
				} `json:"properties"`
				GVK []map[string]string `json:"x-kubernetes-group-version-kind"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	const prefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
	crdSchema, ok := doc.Components.Schemas[prefix+"CustomResourceDefinition"]
	if !ok || len(crdSchema.GVK) != 1 || crdSchema.GVK[0]["kind"] != "CustomResourceDefinition" {
		t.Errorf("no %sCustomResourceDefinition with its group-version-kind: %+v", prefix, crdSchema)
	}
	conditions := doc.Components.Schemas[prefix+"CustomResourceDefinitionStatus"].Properties["conditions"]
	if conditions.ListType != "map" || len(conditions.MapKeys) != 1 || conditions.MapKeys[0] != "type" {
		t.Errorf("status.conditions: list type %q keys %v, want map keyed by type", conditions.ListType, conditions.MapKeys)
	}

	for _, categories := range [][]string{nil, {"gadgets"}} {
		crd := protobufCRD()
		crd.TypeMeta = metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}
		crd.Spec.Names.Categories = categories
		patch, err := json.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, crd.Name,
			types.ApplyPatchType, patch, metav1.PatchOptions{FieldManager: "test"})
		if err != nil {
			t.Fatalf("apply (categories %v): %v", categories, err)
		}
		if len(got.Spec.Names.Categories) != len(categories) {
			t.Errorf("apply: categories %v, want %v", got.Spec.Names.Categories, categories)
		}
	}
}
