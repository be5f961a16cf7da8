package controlplane

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// What the storage says reaches clients in upstream's shapes: the revision
// a too-large resourceVersion asked for, etcd's words without gRPC's, and
// watches that end when their timeout says. Issue 15, defect 12.
func TestStorageErrorsAsUpstream(t *testing.T) {
	s := startServer(t, "etcd3")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps(patchNamespace)
	ctx := t.Context()

	t.Run("exact list of a future resourceVersion", func(t *testing.T) {
		current, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		future := "999999999"
		_, err = cms.List(ctx, metav1.ListOptions{ResourceVersion: future, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			t.Fatalf("err = %v, want a Status", err)
		}
		st := status.Status()
		wantPrefix := fmt.Sprintf("Timeout: Too large resource version: %s, current: ", future)
		if st.Code != http.StatusGatewayTimeout || st.Reason != metav1.StatusReasonTimeout || !strings.HasPrefix(st.Message, wantPrefix) {
			t.Errorf("got %d %s %q, want 504 Timeout %q...", st.Code, st.Reason, st.Message, wantPrefix)
		}
		if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge {
			t.Errorf("details = %+v, want one ResourceVersionTooLarge cause", st.Details)
		}
		if current.ResourceVersion == future {
			t.Fatal("the store reached the future")
		}
	})

	t.Run("etcd's refusal without gRPC's words", func(t *testing.T) {
		// Larger than the etcd client sends (2 MiB), smaller than a body
		// may be (3 MiB); ConfigMaps and Secrets stop at 1 MiB, env values
		// do not.
		container := corev1.Container{Name: "c", Image: "i", Env: []corev1.EnvVar{{Name: "E", Value: strings.Repeat("x", 2500<<10)}}}
		big := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{container}},
		}}
		_, err := cs.CoreV1().PodTemplates(patchNamespace).Create(ctx, big, metav1.CreateOptions{})
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			t.Fatalf("err = %v, want a Status", err)
		}
		st := status.Status()
		if st.Code != http.StatusInternalServerError || strings.Contains(st.Message, "rpc error") || strings.Contains(st.Message, "code = ") {
			t.Errorf("got %d %q, want a 500 without gRPC's words", st.Code, st.Message)
		}
		t.Logf("message: %s", st.Message)
	})

	t.Run("watch with a negative timeout ends at once", func(t *testing.T) {
		w, err := cms.Watch(ctx, metav1.ListOptions{TimeoutSeconds: ptr.To[int64](-1)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		for range w.ResultChan() {
			// Events already queued may come; the stream must still end.
		}
	})
}
