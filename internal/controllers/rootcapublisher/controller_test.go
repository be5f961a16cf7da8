package rootcapublisher

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func configMap(data string, annotated bool) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: "x"}, Data: map[string]string{DataKey: data}}
	if annotated {
		cm.Annotations = map[string]string{DescriptionAnnotation: Description}
	}
	return cm
}

// TestSync pins upstream's publisher: created when missing, rewritten when
// its data or description drifts, left alone otherwise.
func TestSync(t *testing.T) {
	tests := []struct {
		name     string
		existing *corev1.ConfigMap
		want     string // the verb written, "" for none
	}{
		{name: "missing", want: "create"},
		{name: "current", existing: configMap(ca, true)},
		{name: "other CA", existing: configMap("old", true), want: "update"},
		{name: "description removed", existing: configMap(ca, false), want: "update"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objs []any
			client := fake.NewClientset()
			if tt.existing != nil {
				client = fake.NewClientset(tt.existing)
				objs = append(objs, tt.existing)
			}
			f := informers.NewSharedInformerFactory(client, 0)
			c, err := New(client, f.Core().V1().ConfigMaps(), f.Core().V1().Namespaces(), []byte(ca), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				_ = f.Core().V1().ConfigMaps().Informer().GetIndexer().Add(o)
			}
			client.ClearActions()
			if err := c.sync(context.Background(), "x"); err != nil {
				t.Fatal(err)
			}
			var verb string
			for _, a := range client.Actions() {
				verb = a.GetVerb()
			}
			if verb != tt.want {
				t.Fatalf("wrote %q, want %q", verb, tt.want)
			}
			if tt.want == "" {
				return
			}
			got, err := client.CoreV1().ConfigMaps("x").Get(context.Background(), ConfigMapName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Data[DataKey] != ca || got.Annotations[DescriptionAnnotation] != Description {
				t.Errorf("got data %q annotations %v", got.Data, got.Annotations)
			}
		})
	}
}
