package controllers

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/apiextensions/customresourcedefinition"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func established(crd *apiextv1.CustomResourceDefinition) bool {
	return isConditionTrue(crd, apiextv1.Established)
}

func create(t testing.TB, s rest.Creater, crd *apiextv1.CustomResourceDefinition) {
	t.Helper()
	if _, err := s.Create(context.Background(), crd, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatalf("create %s: %v", crd.Name, err)
	}
}

// deleteCRD deletes through the registry's delete, which marks the CRD
// and adds the cleanup finalizer.
func deleteCRD(t testing.TB, s *generic.Store, name string) {
	t.Helper()
	if _, _, err := customresourcedefinition.NewREST(s).Delete(context.Background(), name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
}

// condition returns the type, status, reason and message of a condition,
// "" when it is absent.
func condition(crd *apiextv1.CustomResourceDefinition, typ apiextv1.CustomResourceDefinitionConditionType) string {
	c := findCondition(crd, typ)
	if c == nil {
		return ""
	}
	return string(c.Status) + " " + c.Reason + ": " + c.Message
}

func TestCRDBecomesEstablished(t *testing.T) {
	store, status := newCRDStorage(t)
	start(t, Config{CRDs: store, Status: status})

	crd := newCRD("widgets.example.com", "example.com", "widgets", "Widget")
	crd.Spec.Names.ShortNames = []string{"wd"}
	crd.Spec.Names.Categories = []string{"all"}
	began := time.Now()
	create(t, store, crd)
	got := waitFor(t, store, crd.Name, established)
	t.Logf("create → Established: %v", time.Since(began))

	if diff := cmp.Diff(crd.Spec.Names, got.Status.AcceptedNames); diff != "" {
		t.Errorf("acceptedNames (-spec +status):\n%s", diff)
	}
	for typ, want := range map[apiextv1.CustomResourceDefinitionConditionType]string{
		apiextv1.NamesAccepted:       "True NoConflicts: no conflicts found",
		apiextv1.Established:         "True InitialNamesAccepted: the initial names have been accepted",
		apiextv1.NonStructuralSchema: "",
		apiextv1.Terminating:         "",
	} {
		if c := condition(got, typ); c != want {
			t.Errorf("condition %s = %q, want %q", typ, c, want)
		}
	}
	// Upstream adds the cleanup finalizer on DELETE, not on create.
	if len(got.Finalizers) != 0 {
		t.Errorf("finalizers of a live CRD = %v, want none", got.Finalizers)
	}
	for _, c := range got.Status.Conditions {
		if c.LastTransitionTime.IsZero() {
			t.Errorf("condition %s has no lastTransitionTime", c.Type)
		}
	}
}

// TestConflictingPluralWaitsForItsName: the second CRD asking for a taken
// plural is refused, keeps its other names, and gets established once the
// first CRD is deleted and frees the name.
func TestConflictingPluralWaitsForItsName(t *testing.T) {
	store, status := newCRDStorage(t)
	start(t, Config{CRDs: store, Status: status})

	first := newCRD("widgets.example.com", "example.com", "widgets", "Widget")
	create(t, store, first)
	waitFor(t, store, first.Name, established)

	second := newCRD("gadgets.example.com", "example.com", "widgets", "Gadget")
	create(t, store, second)
	got := waitFor(t, store, second.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return findCondition(crd, apiextv1.NamesAccepted) != nil
	})
	if c, want := condition(got, apiextv1.NamesAccepted), `False PluralConflict: "widgets" is already in use`; c != want {
		t.Errorf("NamesAccepted = %q, want %q", c, want)
	}
	if c, want := condition(got, apiextv1.Established), "False NotAccepted: not all names are accepted"; c != want {
		t.Errorf("Established = %q, want %q", c, want)
	}
	wantNames := apiextv1.CustomResourceDefinitionNames{Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}
	if diff := cmp.Diff(wantNames, got.Status.AcceptedNames); diff != "" {
		t.Errorf("acceptedNames (-want +got):\n%s", diff)
	}

	deleteCRD(t, store, first.Name)
	waitFor(t, store, first.Name, nil)
	got = waitFor(t, store, second.Name, established)
	if got.Status.AcceptedNames.Plural != "widgets" {
		t.Errorf("accepted plural = %q after the name was freed, want widgets", got.Status.AcceptedNames.Plural)
	}
}

func TestOtherGroupMayReuseNames(t *testing.T) {
	store, status := newCRDStorage(t)
	start(t, Config{CRDs: store, Status: status})
	create(t, store, newCRD("widgets.a.example.com", "a.example.com", "widgets", "Widget"))
	create(t, store, newCRD("widgets.b.example.com", "b.example.com", "widgets", "Widget"))
	waitFor(t, store, "widgets.a.example.com", established)
	waitFor(t, store, "widgets.b.example.com", established)
}

func TestNonStructuralSchemaCondition(t *testing.T) {
	tests := []struct {
		name     string
		reasons  []string
		preserve bool
		want     string
	}{
		{name: "structural", want: ""},
		{
			name:    "one violation",
			reasons: []string{"spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root"},
			want:    "True Violations: spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root",
		},
		{
			name:    "two violations",
			reasons: []string{"a: Required value", "b: Forbidden: nope"},
			want:    "True Violations: [a: Required value, b: Forbidden: nope]",
		},
		{
			name:     "preserveUnknownFields",
			preserve: true,
			want:     "True Violations: spec.preserveUnknownFields: Invalid value: true: must be false",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, status := newCRDStorage(t)
			start(t, Config{CRDs: store, Status: status, Structural: func(*apiextv1.CustomResourceDefinition) []string { return tt.reasons }})
			crd := newCRD("widgets.example.com", "example.com", "widgets", "Widget")
			crd.Spec.PreserveUnknownFields = tt.preserve
			create(t, store, crd)
			got := waitFor(t, store, crd.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
				return established(crd) && (tt.want == "") == (findCondition(crd, apiextv1.NonStructuralSchema) == nil)
			})
			if c := condition(got, apiextv1.NonStructuralSchema); c != tt.want {
				t.Errorf("NonStructuralSchema = %q, want %q", c, tt.want)
			}
		})
	}
}

// TestNonStructuralConditionClearedBySpecFix: a new generation whose
// schema is structural loses the condition.
func TestNonStructuralConditionClearedBySpecFix(t *testing.T) {
	store, status := newCRDStorage(t)
	structural := func(crd *apiextv1.CustomResourceDefinition) []string {
		if crd.Spec.Versions[0].Schema == nil {
			return []string{"spec.versions[0].schema: Required value"}
		}
		return nil
	}
	start(t, Config{CRDs: store, Status: status, Structural: structural})
	crd := newCRD("widgets.example.com", "example.com", "widgets", "Widget")
	create(t, store, crd)
	got := waitFor(t, store, crd.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return isConditionTrue(crd, apiextv1.NonStructuralSchema)
	})
	got.Spec.Versions[0].Schema = &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object"}}
	if _, _, err := store.Update(context.Background(), got.Name, rest.DefaultUpdatedObjectInfo(got), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, store, crd.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return crd.Generation == 2 && findCondition(crd, apiextv1.NonStructuralSchema) == nil
	})
}

func TestDeletionRemovesInstancesThenCRD(t *testing.T) {
	store, status := newCRDStorage(t)
	crs := newInstances("a/one", "a/two", "b/three")
	var mu sync.Mutex
	var asked []string
	start(t, Config{CRDs: store, Status: status, Instances: func(group, resource string) rest.Storage {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, resource+"."+group)
		return crs
	}})
	crd := newCRD("widgets.example.com", "example.com", "widgets", "Widget")
	create(t, store, crd)
	waitFor(t, store, crd.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return established(crd)
	})

	deleteCRD(t, store, crd.Name)
	waitFor(t, store, crd.Name, nil)
	if keys := crs.keys(); len(keys) != 0 {
		t.Errorf("instances left after the CRD went: %v", keys)
	}
	crs.mu.Lock()
	deleted := slices.Sorted(slices.Values(crs.deleted))
	crs.mu.Unlock()
	if diff := cmp.Diff([]string{"a", "b"}, deleted); diff != "" {
		t.Errorf("DeleteCollection namespaces (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"widgets.example.com"}, asked); diff != "" {
		t.Errorf("Instances asked for (-want +got):\n%s", diff)
	}
}

// TestDeletionWaitsForLingeringInstances: while a custom resource survives
// its deletion the CRD stays, Terminating, with its finalizer.
func TestDeletionWaitsForLingeringInstances(t *testing.T) {
	store, status := newCRDStorage(t)
	crs := newInstances("a/held", "a/free")
	crs.stuck["a/held"] = true
	start(t, Config{CRDs: store, Status: status, Instances: func(string, string) rest.Storage { return crs }})
	crd := newCRD("widgets.example.com", "example.com", "widgets", "Widget")
	create(t, store, crd)
	waitFor(t, store, crd.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return established(crd)
	})

	deleteCRD(t, store, crd.Name)
	// The condition passes through InstanceDeletionPending before the
	// instances go, so wait for the one that must follow.
	const want = "True InstanceDeletionInProgress: CustomResource deletion is in progress"
	got := waitFor(t, store, crd.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return condition(crd, apiextv1.Terminating) == want && slices.Equal(crs.keys(), []string{"a/held"})
	})
	if !slices.Contains(got.Finalizers, CleanupFinalizer) {
		t.Errorf("finalizer removed while an instance remains: %v", got.Finalizers)
	}
	crs.release()
	waitFor(t, store, crd.Name, nil)
}

// TestDeletionOfNeverEstablishedCRD: a CRD whose names were refused has
// nothing served to clean up.
func TestDeletionOfNeverEstablishedCRD(t *testing.T) {
	store, status := newCRDStorage(t)
	crs := newInstances()
	start(t, Config{CRDs: store, Status: status, Instances: func(string, string) rest.Storage { return crs }})
	create(t, store, newCRD("widgets.example.com", "example.com", "widgets", "Widget"))
	waitFor(t, store, "widgets.example.com", established)
	loser := newCRD("gadgets.example.com", "example.com", "gadgets", "Widget")
	loser.Spec.Names.Singular = "gadget"
	create(t, store, loser)
	// Kind and listKind both conflict; the last name checked is reported.
	waitFor(t, store, loser.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return condition(crd, apiextv1.NamesAccepted) == `False ListKindConflict: "WidgetList" is already in use`
	})
	deleteCRD(t, store, loser.Name)
	waitFor(t, store, loser.Name, nil)
	crs.mu.Lock()
	defer crs.mu.Unlock()
	if len(crs.deleted) != 0 {
		t.Errorf("DeleteCollection called for a never established CRD: %v", crs.deleted)
	}
}

// BenchmarkCreateToEstablished measures how long a new CRD takes to be
// Established (three writes: finalizer, names, Established).
func BenchmarkCreateToEstablished(b *testing.B) {
	store, status := newCRDStorage(b)
	start(b, Config{CRDs: store, Status: status})
	i := 0
	for b.Loop() {
		i++
		group := fmt.Sprintf("g%d.example.com", i)
		crd := newCRD("widgets."+group, group, "widgets", "Widget")
		create(b, store, crd)
		waitFor(b, store, crd.Name, established)
	}
}
