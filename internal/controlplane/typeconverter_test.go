package controlplane

import (
	"log/slog"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/internal/apis/install"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

// TestLazyTypeConverterKeepsAKindsSchema: a kind converted before the
// full converter was built keeps its own converter after, so the typed
// values of one write (the stored object's and the new one's) always
// come from one schema and can be compared; a kind first converted after
// uses the full converter.
func TestLazyTypeConverterKeepsAKindsSchema(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		t.Fatal(err)
	}
	b := definitions.NewBuilder(scheme)
	l := newLazyTypeConverter(b.TypeConverter, slog.New(slog.DiscardHandler))
	l.kind = b.KindTypeConverter
	l.kinds = map[schema.GroupVersionKind]*kindConverter{}

	cm := func(v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Data: map[string]string{"k": v}}
	}
	before, err := l.ObjectToTyped(cm("a"))
	if err != nil {
		t.Fatal(err)
	}
	full := l.get()
	after, err := l.ObjectToTyped(cm("b"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := after.Compare(before); err != nil {
		t.Errorf("comparing a ConfigMap converted before the full converter with one converted after: %v", err)
	}

	secret := &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, StringData: map[string]string{"k": "v"}}
	viaLazy, err := l.ObjectToTyped(secret)
	if err != nil {
		t.Fatal(err)
	}
	viaFull, err := full.ObjectToTyped(secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := viaLazy.Compare(viaFull); err != nil {
		t.Errorf("a kind first converted after the full converter was built does not use it: %v", err)
	}
	var _ managedfields.TypeConverter = l
}
