package bootstrap

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/flowschema"
	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/prioritylevelconfiguration"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// TestObjectsPassValidation creates every mandatory and suggested object
// through kapi's own storage: a bootstrap object its validation refuses
// would make the config producer fail forever.
func TestObjectsPassValidation(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	getter := registrytest.NewOptionsGetter(t, scheme)
	fsStorage, err := flowschema.NewStorage(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	plStorage, err := prioritylevelconfiguration.NewStorage(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	fs := fsStorage["flowschemas"].(rest.StandardStorage)
	pl := plStorage["prioritylevelconfigurations"].(rest.StandardStorage)
	ctx := context.Background()
	create := func(st rest.StandardStorage, obj runtime.Object, name string) {
		t.Helper()
		if _, err := st.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
			t.Errorf("creating %s: %v", name, err)
		}
	}
	for _, l := range append(MandatoryPriorityLevels(), SuggestedPriorityLevels()...) {
		create(pl, l, "priority level "+l.Name)
	}
	for _, s := range append(MandatoryFlowSchemas(), SuggestedFlowSchemas()...) {
		create(fs, s, "flow schema "+s.Name)
	}
	if _, err := fs.Get(ctx, "catch-all", &metav1.GetOptions{}); err != nil {
		t.Errorf("catch-all flow schema: %v", err)
	}
}
