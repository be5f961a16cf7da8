package bootstrap

import (
	"context"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/flowschema"
	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/prioritylevelconfiguration"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestEnsureMandatoryConfiguration(t *testing.T) {
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
	for range 2 { // the second run finds them all
		if err := EnsureMandatoryConfiguration(ctx, fs, pl); err != nil {
			t.Fatalf("EnsureMandatoryConfiguration: %v", err)
		}
	}
	obj, err := fs.Get(ctx, "catch-all", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*flowcontrolv1.FlowSchema); got.Spec.MatchingPrecedence != 10000 || got.Spec.PriorityLevelConfiguration.Name != "catch-all" {
		t.Errorf("catch-all flow schema = %+v", got.Spec)
	}
	if _, err := fs.Get(ctx, "exempt", &metav1.GetOptions{}); err != nil {
		t.Errorf("exempt flow schema: %v", err)
	}
	obj, err = pl.Get(ctx, "catch-all", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l := obj.(*flowcontrolv1.PriorityLevelConfiguration).Spec.Limited; l == nil || *l.NominalConcurrencyShares != 5 {
		t.Errorf("catch-all priority level = %+v", l)
	}
	if _, err := pl.Get(ctx, "exempt", &metav1.GetOptions{}); err != nil {
		t.Errorf("exempt priority level: %v", err)
	}
}
