package ensurer

import (
	"context"
	"log/slog"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	flowcontrollisters "k8s.io/client-go/listers/flowcontrol/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/bootstrap"
)

// newEnsurer serves existing from listers and from a fake clientset.
func newEnsurer(t *testing.T, existing ...runtime.Object) (*Ensurer, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(existing...)
	plIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	fsIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range existing {
		var err error
		switch o.(type) {
		case *flowcontrolv1.PriorityLevelConfiguration:
			err = plIdx.Add(o)
		case *flowcontrolv1.FlowSchema:
			err = fsIdx.Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	e := New(client.FlowcontrolV1(), flowcontrollisters.NewPriorityLevelConfigurationLister(plIdx),
		flowcontrollisters.NewFlowSchemaLister(fsIdx), slog.New(slog.DiscardHandler))
	return e, client
}

// suggestedLevel is the bootstrap workload-low level, changed by a user
// (generation 2) and annotated with ann (nil: no annotation).
func suggestedLevel(name string, ann *string, generation int64, shares int32) *flowcontrolv1.PriorityLevelConfiguration {
	var pl *flowcontrolv1.PriorityLevelConfiguration
	for _, p := range append(bootstrap.SuggestedPriorityLevels(), bootstrap.MandatoryPriorityLevels()...) {
		if p.Name == name {
			pl = p
		}
	}
	pl.Generation = generation
	pl.Annotations = nil
	if ann != nil {
		pl.Annotations = map[string]string{bootstrap.AutoUpdateAnnotation: *ann}
	}
	if pl.Spec.Limited != nil {
		pl.Spec.Limited.NominalConcurrencyShares = ptr.To(shares)
	} else {
		pl.Spec.Exempt.NominalConcurrencyShares = ptr.To(shares)
	}
	return pl
}

func flowSchema(name string, ann *string) *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1}}
	fs.Spec.PriorityLevelConfiguration.Name = "global-default"
	fs.Spec.MatchingPrecedence = 5000
	if ann != nil {
		fs.Annotations = map[string]string{bootstrap.AutoUpdateAnnotation: *ann}
	}
	return fs
}

// TestEnsureCreatesAll: on an empty cluster every mandatory and suggested
// object is created, annotated autoupdate-spec "true".
func TestEnsureCreatesAll(t *testing.T) {
	e, client := newEnsurer(t)
	if err := e.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	pls, _ := client.FlowcontrolV1().PriorityLevelConfigurations().List(context.Background(), metav1.ListOptions{})
	fss, _ := client.FlowcontrolV1().FlowSchemas().List(context.Background(), metav1.ListOptions{})
	if len(pls.Items) != 8 || len(fss.Items) != 11 {
		t.Fatalf("got %d priority levels and %d flow schemas, want 8 and 11", len(pls.Items), len(fss.Items))
	}
	for _, fs := range fss.Items {
		if fs.Annotations[bootstrap.AutoUpdateAnnotation] != "true" {
			t.Errorf("%s: annotation %v", fs.Name, fs.Annotations)
		}
	}
}

// TestEnsureAutoUpdateSemantics pins the annotation rules of upstream's
// ensurer, object by object.
func TestEnsureAutoUpdateSemantics(t *testing.T) {
	yes, no, junk := "true", "false", "maybe"
	tests := []struct {
		name       string
		existing   *flowcontrolv1.PriorityLevelConfiguration
		wantShares int32
		wantAnn    string
	}{
		{"suggested, true: spec put back", suggestedLevel("workload-low", &yes, 2, 7), 100, "true"},
		{"suggested, false: left alone", suggestedLevel("workload-low", &no, 2, 7), 7, "false"},
		{"suggested, no annotation, changed: marked false", suggestedLevel("workload-low", nil, 2, 7), 7, "false"},
		{"suggested, bad annotation, changed: marked false", suggestedLevel("workload-low", &junk, 2, 7), 7, "false"},
		{"suggested, no annotation, generation 1: marked true and put back", suggestedLevel("workload-low", nil, 1, 7), 100, "true"},
		{"mandatory, false: put back and marked true", suggestedLevel("catch-all", &no, 2, 7), 5, "true"},
		{"exempt shares are the operator's", suggestedLevel("exempt", &yes, 2, 7), 7, "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, client := newEnsurer(t, tt.existing)
			if err := e.Ensure(context.Background()); err != nil {
				t.Fatal(err)
			}
			got, err := client.FlowcontrolV1().PriorityLevelConfigurations().Get(context.Background(), tt.existing.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			shares := got.Spec.Exempt
			var n int32
			if shares != nil {
				n = *shares.NominalConcurrencyShares
			} else {
				n = *got.Spec.Limited.NominalConcurrencyShares
			}
			if n != tt.wantShares || got.Annotations[bootstrap.AutoUpdateAnnotation] != tt.wantAnn {
				t.Errorf("shares %d annotation %q, want %d %q", n, got.Annotations[bootstrap.AutoUpdateAnnotation], tt.wantShares, tt.wantAnn)
			}
		})
	}
}

// TestEnsureRemovesUnwanted: objects no longer suggested go only when
// annotated "true".
func TestEnsureRemovesUnwanted(t *testing.T) {
	yes, no := "true", "false"
	e, client := newEnsurer(t, flowSchema("old-suggested", &yes), flowSchema("users-false", &no), flowSchema("users", nil))
	if err := e.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, wantGone := range map[string]bool{"old-suggested": true, "users-false": false, "users": false} {
		_, err := client.FlowcontrolV1().FlowSchemas().Get(context.Background(), name, metav1.GetOptions{})
		if gone := apierrors.IsNotFound(err); gone != wantGone {
			t.Errorf("%s: gone=%v (err %v), want %v", name, gone, err, wantGone)
		}
	}
}

// TestWritesUseFieldManager: the producer's writes carry upstream's
// field manager.
func TestWritesUseFieldManager(t *testing.T) {
	e, client := newEnsurer(t)
	if err := e.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	creates := 0
	for _, a := range client.Actions() {
		if c, ok := a.(interface{ GetCreateOptions() metav1.CreateOptions }); ok {
			creates++
			if c.GetCreateOptions().FieldManager != FieldManager {
				t.Errorf("create with field manager %q", c.GetCreateOptions().FieldManager)
			}
		}
	}
	if creates != 19 {
		t.Errorf("%d creates, want 19", creates)
	}
}
