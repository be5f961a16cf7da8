package etcd3

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// TestStoredLayout checks that kapi writes what kube-apiserver would: the
// key /registry/configmaps/<ns>/<name> and a protobuf value in the
// "k8s\x00" envelope that plain apimachinery decodes.
func TestStoredLayout(t *testing.T) {
	b := New(shared.Client(), "/registry", nil)
	t.Cleanup(func() { _ = b.Close() })
	s, err := b.ForResource(storagetest.ConfigMapResource())
	if err != nil {
		t.Fatal(err)
	}
	in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "layout", Name: "cm"}, Data: map[string]string{"a": "b"}}
	out := &corev1.ConfigMap{}
	if err := s.Create(t.Context(), storagetest.ConfigMapKey("layout", "cm"), in, out); err != nil {
		t.Fatalf("Create: %v", err)
	}
	// t.Context is already cancelled when cleanups run.
	t.Cleanup(func() {
		if err := s.Delete(context.Background(), storagetest.ConfigMapKey("layout", "cm"), &corev1.ConfigMap{}, nil, nil); err != nil {
			t.Errorf("cleanup Delete: %v", err)
		}
	})

	resp, err := shared.Client().Get(t.Context(), "/registry/configmaps/layout/cm")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw Get = %v, %v; want one key", resp, err)
	}
	raw := resp.Kvs[0]
	if !bytes.HasPrefix(raw.Value, []byte("k8s\x00")) {
		t.Fatalf("stored value starts with %q, want the k8s protobuf envelope", raw.Value[:min(8, len(raw.Value))])
	}
	if rv := out.ResourceVersion; rv != formatRev(raw.ModRevision) {
		t.Errorf("resourceVersion %s, want etcd ModRevision %d", rv, raw.ModRevision)
	}
	scheme := storagetest.NewScheme()
	obj, gvk, err := protobuf.NewSerializer(scheme, scheme).Decode(raw.Value, nil, nil)
	if err != nil {
		t.Fatalf("plain protobuf decode: %v", err)
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Name != "cm" || cm.Data["a"] != "b" || gvk.Version != "v1" || gvk.Kind != "ConfigMap" {
		t.Errorf("decoded %v %#v", gvk, obj)
	}
	if cm.ResourceVersion != "" {
		t.Errorf("stored object carries resourceVersion %q, want none", cm.ResourceVersion)
	}
}

// TestWatchCompactedMessage checks the upstream wording of the expired
// watch error.
func TestWatchCompactedMessage(t *testing.T) {
	b := newBackend(t)
	s, err := b.ForResource(storagetest.ConfigMapResource())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	out := &corev1.ConfigMap{}
	for _, name := range []string{"a", "b"} {
		in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		if err := s.Create(ctx, storagetest.ConfigMapKey("ns", name), in, out); err != nil {
			t.Fatal(err)
		}
	}
	rev := mustRev(t, s)
	if err := b.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, "/configmaps", storage.ListOptions{ResourceVersion: "1", Recursive: true, Predicate: storage.Everything})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		st, ok := ev.Object.(*metav1.Status)
		if ev.Type != watch.Error || !ok || st.Code != http.StatusGone ||
			!strings.HasPrefix(st.Message, "too old resource version: 1 (") {
			t.Fatalf("got %s %#v, want an expired error", ev.Type, ev.Object)
		}
		t.Logf("message: %s", st.Message)
	case <-time.After(30 * time.Second):
		t.Fatal("no error event")
	}
}

// TestCloseKeepsClient checks that closing the backend ends its watches but
// leaves the shared client usable.
func TestCloseKeepsClient(t *testing.T) {
	b := New(shared.Client(), "/registry-close", nil)
	s, err := b.ForResource(storagetest.ConfigMapResource())
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(t.Context(), "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for range w.ResultChan() {
	}
	if _, err := s.Watch(t.Context(), "/configmaps", storage.ListOptions{Recursive: true}); storage.CodeOf(err) != storage.ErrCodeUnreachable {
		t.Errorf("Watch after Close = %v, want ErrCodeUnreachable", err)
	}
	if _, err := shared.Client().Get(t.Context(), "/registry-close"); err != nil {
		t.Errorf("client unusable after backend Close: %v", err)
	}
}

func mustRev(t *testing.T, s storage.Interface) int64 {
	t.Helper()
	rv, err := s.CurrentResourceVersion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return int64(rv)
}

func formatRev(rev int64) string { return strconv.FormatInt(rev, 10) }
