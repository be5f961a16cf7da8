package controlplane

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// benchCRD is a namespaced CRD of group <plural>.bench.example.com whose
// spec has fields f00..f<n-1> (strings, integers and booleans in turn) and
// the given CEL rules on spec.
func benchCRD(plural string, fields int, rules []string) *unstructured.Unstructured {
	var props strings.Builder
	for i := range fields {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&props, "              f%02d: {type: string, maxLength: 64}\n", i)
		case 1:
			fmt.Fprintf(&props, "              f%02d: {type: integer, minimum: 0, maximum: 1000}\n", i)
		default:
			fmt.Fprintf(&props, "              f%02d: {type: boolean}\n", i)
		}
	}
	var cel strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&cel, "            - rule: %q\n", r)
	}
	validations := ""
	if cel.Len() > 0 {
		validations = "            x-kubernetes-validations:\n" + cel.String()
	}
	kind := strings.ToUpper(plural[:1]) + strings.TrimSuffix(plural[1:], "s")
	doc := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]s.bench.example.com}
spec:
  group: bench.example.com
  scope: Namespaced
  names: {plural: %[1]s, singular: %[3]s, kind: %[2]s}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
%[4]s            properties:
%[5]s`, plural, kind, strings.ToLower(kind), validations, props.String())
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		panic(err)
	}
	return u
}

func (s *benchServer) dynamic() dynamic.Interface {
	return dynamic.NewForConfigOrDie(s.restCfg)
}

// waitServable polls the collection until it answers 200.
func waitServable(ctx context.Context, c dynamic.Interface, gvr schema.GroupVersionResource) error {
	for {
		_, err := c.Resource(gvr).Namespace("bench").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never became servable: %w", gvr, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// BenchmarkCRDCreateToServable is the time from a CRD's create to its
// resource answering a LIST: naming, establishing and the handler's
// rebuild, as an operator's test suite sees it.
func BenchmarkCRDCreateToServable(b *testing.B) {
	s := startServer(b, "memory")
	c := s.dynamic()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		plural := fmt.Sprintf("things%d", i)
		if _, err := c.Resource(crdGVR).Create(ctx, benchCRD(plural, 5, nil), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := waitServable(wctx, c, schema.GroupVersionResource{Group: "bench.example.com", Version: "v1", Resource: plural})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// celRules are five rules over the bench CRD's spec fields.
var celRules = []string{
	"self.f00.size() <= 32",
	"self.f01 <= self.f04 + 1000",
	"!has(self.f02) || self.f02 || self.f05",
	"self.f03.startsWith('x')",
	"self.f07 >= 0",
}

func benchCustomResource(name string, fields int) *unstructured.Unstructured {
	spec := map[string]any{}
	for i := range fields {
		switch i % 3 {
		case 0:
			spec[fmt.Sprintf("f%02d", i)] = "x-value"
		case 1:
			spec[fmt.Sprintf("f%02d", i)] = int64(i)
		default:
			spec[fmt.Sprintf("f%02d", i)] = i%2 == 0
		}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "bench.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// startCRBench serves the 50-field, 5-rule CRD "widgets" and returns its
// namespaced client.
func startCRBench(b *testing.B) dynamic.ResourceInterface {
	s := startServer(b, "memory")
	c := s.dynamic()
	ctx := context.Background()
	if _, err := c.Resource(crdGVR).Create(ctx, benchCRD("widgets", 50, celRules), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "bench.example.com", Version: "v1", Resource: "widgets"}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitServable(wctx, c, gvr); err != nil {
		b.Fatal(err)
	}
	return c.Resource(gvr).Namespace("bench")
}

// BenchmarkCreateCustomResource50Fields5Rules creates custom resources of
// a CRD with a 50-field schema and 5 CEL rules through the whole server.
func BenchmarkCreateCustomResource50Fields5Rules(b *testing.B) {
	widgets := startCRBench(b)
	i := 0
	for b.Loop() {
		i++
		if _, err := widgets.Create(context.Background(), benchCustomResource(fmt.Sprintf("w%d", i), 50), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetCustomResource50Fields5Rules(b *testing.B) {
	widgets := startCRBench(b)
	if _, err := widgets.Create(context.Background(), benchCustomResource("w0", 50), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := widgets.Get(context.Background(), "w0", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchCRDRulesRun makes sure the benchmarks above measure the CEL
// rules: the same objects, with one rule broken, are refused.
func TestBenchCRDRulesRun(t *testing.T) {
	s := startServer(t, "memory")
	c := s.dynamic()
	ctx := context.Background()
	if _, err := c.Resource(crdGVR).Create(ctx, benchCRD("widgets", 50, celRules), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "bench.example.com", Version: "v1", Resource: "widgets"}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitServable(wctx, c, gvr); err != nil {
		t.Fatal(err)
	}
	widgets := c.Resource(gvr).Namespace("bench")
	if _, err := widgets.Create(ctx, benchCustomResource("good", 50), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a valid widget: %v", err)
	}
	bad := benchCustomResource("bad", 50)
	bad.Object["spec"].(map[string]any)["f03"] = "y-value"
	_, err := widgets.Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec: Invalid value: failed rule: self.f03.startsWith('x')") {
		t.Errorf("breaking a CEL rule: %v", err)
	}
}
