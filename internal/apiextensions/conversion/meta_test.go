package conversion

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRestoreObjectMeta(t *testing.T) {
	tests := []struct {
		name      string
		original  map[string]any
		converted map[string]any
		want      map[string]any // converted metadata after restoring
		wantErr   string
	}{
		{name: "only labels and annotations kept",
			original:  map[string]any{"metadata": map[string]any{"name": "a", "resourceVersion": "1", "labels": map[string]any{"x": "1"}}},
			converted: map[string]any{"metadata": map[string]any{"name": "a", "resourceVersion": "2", "annotations": map[string]any{"n": "v"}}},
			want:      map[string]any{"name": "a", "resourceVersion": "1", "annotations": map[string]any{"n": "v"}}},
		{name: "unchanged invalid labels are not validated",
			original:  map[string]any{"metadata": map[string]any{"labels": map[string]any{"bad key!": "v"}}},
			converted: map[string]any{"metadata": map[string]any{"labels": map[string]any{"bad key!": "v"}}},
			want:      map[string]any{"labels": map[string]any{"bad key!": "v"}}},
		{name: "original without metadata",
			original:  map[string]any{},
			converted: map[string]any{"metadata": map[string]any{"name": "x", "labels": map[string]any{"a": "b"}}},
			want:      map[string]any{"labels": map[string]any{"a": "b"}}},
		{name: "missing metadata", original: map[string]any{}, converted: map[string]any{},
			wantErr: "missing metadata in converted object"},
		{name: "metadata not an object", original: map[string]any{}, converted: map[string]any{"metadata": "x"},
			wantErr: "invalid metadata of type string in converted object"},
		{name: "original metadata not an object", original: map[string]any{"metadata": []any{}}, converted: map[string]any{"metadata": map[string]any{}},
			wantErr: "invalid metadata of type []interface {} in input object"},
		{name: "labels not an object", original: map[string]any{}, converted: map[string]any{"metadata": map[string]any{"labels": "x"}},
			wantErr: "invalid metadata.labels of type string in converted object"},
		{name: "original annotations not an object",
			original:  map[string]any{"metadata": map[string]any{"annotations": "x"}},
			converted: map[string]any{"metadata": map[string]any{"annotations": map[string]any{}}},
			wantErr:   "invalid metadata.annotations of type string in original object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			converted := &unstructured.Unstructured{Object: tc.converted}
			err := restoreObjectMeta(&unstructured.Unstructured{Object: tc.original}, converted)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, converted.Object["metadata"]); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzAnswer feeds arbitrary webhook answers to the checks: they must
// return objects or an error, never panic.
func FuzzAnswer(f *testing.F) {
	const uid = "1234"
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"1234","result":{"status":"Success"},` +
		`"convertedObjects":[{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a","namespace":"default","uid":"uid-a","labels":{"k":"v"}}}]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"1234","result":{"status":"Success"},` +
		`"convertedObjects":[{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"a","namespace":"default","uid":"uid-a","labels":{"k":1},"annotations":[]}}]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"1234","result":{"status":"Success"},"convertedObjects":[null]}}`))
	f.Add([]byte(`{"response":{"result":{"status":"Failure","message":"no"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var review ConversionReview
		if json.Unmarshal(data, &review) != nil {
			return
		}
		k := &call{single: true, subject: v1alpha1.WithKind("Widget"), gv: v1}
		out, err := k.answer("v1", uid, []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}, &review)
		if err == nil && (len(out) != 1 || out[0].GetAPIVersion() != v1.String() || out[0].GetName() != "a") {
			t.Fatalf("accepted a wrong answer: %v", out)
		}
	})
}

// BenchmarkConvert100 converts 100 objects through a local webhook.
func BenchmarkConvert100(b *testing.B) {
	h := newTestHook(b)
	c := h.converter(b)
	objs := make([]*unstructured.Unstructured, 100)
	for i := range objs {
		objs[i] = widget("v1alpha1", "w", "colour", "red")
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Convert(ctx, objs, v1); err != nil {
			b.Fatal(err)
		}
	}
}
