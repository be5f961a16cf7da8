package generic_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

func TestDelete(t *testing.T) {
	otherUID := types.UID("someone-else")
	staleRV := "1"
	background := metav1.DeletePropagationBackground
	yes := true
	deny := func(context.Context, runtime.Object) error {
		return apierrors.NewForbidden(corev1.Resource("configmaps"), "foo", errors.New("denied"))
	}
	tests := []struct {
		name        string
		target      string
		options     *metav1.DeleteOptions
		validation  rest.ValidateObjectFunc
		wantCode    int32
		wantMessage string
		wantGone    bool
	}{
		{name: "nil options", target: "foo", wantGone: true},
		{name: "background", target: "foo", options: &metav1.DeleteOptions{PropagationPolicy: &background}, wantGone: true},
		{name: "missing", target: "bar", options: &metav1.DeleteOptions{}, wantCode: 404, wantMessage: `configmaps "bar" not found`},
		{
			name: "uid precondition", target: "foo",
			options:  &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &otherUID}},
			wantCode: 409, wantMessage: `Operation cannot be fulfilled on ConfigMap "foo": the UID in the precondition (someone-else) does not match the UID in record (UID). The object might have been deleted and then recreated`,
		},
		{
			name: "resourceVersion precondition", target: "foo",
			options:  &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &staleRV}},
			wantCode: 409, wantMessage: `Operation cannot be fulfilled on ConfigMap "foo": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (RV). The object might have been modified`,
		},
		{
			name: "orphanDependents with propagationPolicy", target: "foo",
			options:  &metav1.DeleteOptions{OrphanDependents: &yes, PropagationPolicy: &background},
			wantCode: 422, wantMessage: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set`,
		},
		{name: "admission denies", target: "foo", validation: deny, wantCode: 403, wantMessage: `configmaps "foo" is forbidden: denied`},
		{name: "dry run", target: "foo", options: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, nil)
			stored := mustCreate(t, s, newConfigMap("ns", "foo", nil))
			wantMessage := strings.NewReplacer("(UID)", "("+string(stored.UID)+")", "(RV)", "("+stored.ResourceVersion+")").Replace(tt.wantMessage)

			out, deleted, err := s.Delete(nsContext("ns"), tt.target, tt.validation, tt.options)
			wantStatus(t, err, tt.wantCode, wantMessage)
			if err == nil {
				want := &metav1.Status{Status: metav1.StatusSuccess, Details: &metav1.StatusDetails{Name: "foo", Kind: "configmaps", UID: stored.UID}}
				if diff := cmp.Diff(want, out); diff != "" || !deleted {
					t.Errorf("deleted = %v, result (-want +got):\n%s", deleted, diff)
				}
			}
			if tt.wantGone {
				wantNotFound(t, s, "ns", "foo")
			} else {
				mustGet(t, s, "ns", "foo")
			}
		})
	}
}

func TestDeleteReturnsObject(t *testing.T) {
	s := newStore(t, func(s *generic.Store, _ *resttest.ConfigMapStrategy) { s.ReturnDeletedObject = true })
	stored := mustCreate(t, s, newConfigMap("ns", "foo", map[string]string{"k": "v"}))
	out, deleted, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{})
	if err != nil || !deleted {
		t.Fatalf("deleted=%v err=%v", deleted, err)
	}
	if got, ok := out.(*corev1.ConfigMap); !ok || got.UID != stored.UID || got.Data["k"] != "v" {
		t.Errorf("result = %#v, want the deleted object", out)
	}
}

func TestDeleteWithFinalizers(t *testing.T) {
	s := newStore(t, nil)
	cm := newConfigMap("ns", "foo", nil)
	cm.Finalizers = []string{"example.com/a", "example.com/b"}
	mustCreate(t, s, cm)

	// Deleting marks the object and keeps it.
	out, deleted, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("delete: deleted=%v err=%v, want a mark", deleted, err)
	}
	marked := out.(*corev1.ConfigMap)
	if marked.DeletionTimestamp == nil || time.Since(marked.DeletionTimestamp.Time) > time.Minute {
		t.Errorf("deletionTimestamp = %v, want about now", marked.DeletionTimestamp)
	}
	if g := marked.DeletionGracePeriodSeconds; g == nil || *g != 0 {
		t.Errorf("deletionGracePeriodSeconds = %v, want 0", g)
	}
	if stored := mustGet(t, s, "ns", "foo"); stored.ResourceVersion != marked.ResourceVersion {
		t.Errorf("stored resourceVersion %s, returned %s", stored.ResourceVersion, marked.ResourceVersion)
	}

	// Deleting again changes nothing.
	out, deleted, err = s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{})
	if err != nil || deleted || out.(*corev1.ConfigMap).ResourceVersion != marked.ResourceVersion {
		t.Fatalf("second delete: deleted=%v err=%v rv=%s, want no change", deleted, err, out.(*corev1.ConfigMap).ResourceVersion)
	}

	// Removing one finalizer keeps it; a dry run removing the last keeps it.
	marked = withFinalizers(t, s, marked, []string{"example.com/b"}, nil)
	mustGet(t, s, "ns", "foo")
	withFinalizers(t, s, marked, nil, []string{metav1.DryRunAll})
	mustGet(t, s, "ns", "foo")

	// Removing the last one deletes it; the PUT returns the object sent.
	got := withFinalizers(t, s, marked, nil, nil)
	if got.Name != "foo" || len(got.Finalizers) != 0 {
		t.Errorf("update result = %v, want the object without finalizers", got.ObjectMeta)
	}
	wantNotFound(t, s, "ns", "foo")
}

// withFinalizers PUTs cm with the given finalizers.
func withFinalizers(t *testing.T, s *generic.Store, cm *corev1.ConfigMap, finalizers, dryRun []string) *corev1.ConfigMap {
	t.Helper()
	body := cm.DeepCopy()
	body.Finalizers = finalizers
	got, _, err := put(s, "ns", cm.Name, body, &metav1.UpdateOptions{DryRun: dryRun})
	if err != nil {
		t.Fatalf("update finalizers to %v: %v", finalizers, err)
	}
	return got
}

func TestDeleteFinalizersDryRun(t *testing.T) {
	s := newStore(t, nil)
	cm := newConfigMap("ns", "foo", nil)
	cm.Finalizers = []string{"example.com/a"}
	stored := mustCreate(t, s, cm)
	out, deleted, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || deleted || out.(*corev1.ConfigMap).DeletionTimestamp == nil {
		t.Fatalf("dry-run delete: deleted=%v err=%v, want the marked object", deleted, err)
	}
	if now := mustGet(t, s, "ns", "foo"); now.DeletionTimestamp != nil || now.ResourceVersion != stored.ResourceVersion {
		t.Errorf("dry run changed the object: %v", now.ObjectMeta)
	}
}

func TestDeleteGraceful(t *testing.T) {
	s := newStore(t, func(s *generic.Store, strategy *resttest.ConfigMapStrategy) {
		s.CreateStrategy, s.UpdateStrategy = *strategy, *strategy
		s.DeleteStrategy = resttest.GracefulDeleteStrategy{ObjectTyper: strategy.ObjectTyper, DefaultPeriod: 30}
	})
	mustCreate(t, s, newConfigMap("ns", "foo", nil))

	out, deleted, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("graceful delete: deleted=%v err=%v, want a mark", deleted, err)
	}
	if g := out.(*corev1.ConfigMap).DeletionGracePeriodSeconds; g == nil || *g != 30 {
		t.Errorf("deletionGracePeriodSeconds = %v, want 30", g)
	}
	mustGet(t, s, "ns", "foo")

	// A longer period does not extend it; zero deletes at once.
	if _, deleted, err := s.Delete(nsContext("ns"), "foo", nil, metav1.NewDeleteOptions(60)); err != nil || deleted {
		t.Fatalf("longer period: deleted=%v err=%v", deleted, err)
	}
	if _, deleted, err := s.Delete(nsContext("ns"), "foo", nil, metav1.NewDeleteOptions(0)); err != nil || !deleted {
		t.Fatalf("zero period: deleted=%v err=%v", deleted, err)
	}
	wantNotFound(t, s, "ns", "foo")
}
