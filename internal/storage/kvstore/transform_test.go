package kvstore

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
	"github.com/kapi-dev/kapi/internal/storage/value"
	aestransformer "github.com/kapi-dev/kapi/internal/storage/value/encrypt/aes"
	"github.com/kapi-dev/kapi/internal/storage/value/encrypt/identity"
)

var (
	configmaps  = schema.GroupResource{Resource: "configmaps"}
	keyK1       = []byte("0123456789abcdef")
	keyK2       = []byte("fedcba9876543210")
	etcdPrefix  = "/registry"
	secretValue = "the-secret-value"
)

// gcmKeys is an aesgcm provider with the named keys, the first writing, as
// the encryption config builds it.
func gcmKeys(t *testing.T, keys ...string) value.Transformer {
	t.Helper()
	var per []value.PrefixTransformer
	for _, name := range keys {
		k := keyK1
		if name == "k2" {
			k = keyK2
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := aestransformer.NewGCMTransformer(block)
		if err != nil {
			t.Fatal(err)
		}
		per = append(per, value.PrefixTransformer{Prefix: []byte(name + ":"), Transformer: tr})
	}
	return value.NewPrefixTransformers(nil, value.PrefixTransformer{
		Prefix: []byte("k8s:enc:aesgcm:v1:"), Transformer: value.NewPrefixTransformers(nil, per...)})
}

// newStore serves configmaps over kv with tr as their transformer.
func newStore(t *testing.T, kv KV, tr value.Transformer) storage.Interface {
	t.Helper()
	b := NewBackendWithOptions(kv, BackendOptions{
		DataKeyPrefix: etcdPrefix,
		Transformers: func(gr schema.GroupResource) value.Transformer {
			if gr == configmaps {
				return tr
			}
			return nil
		},
	})
	t.Cleanup(func() { _ = b.Close() })
	cfg := storagetest.ConfigMapResource()
	cfg.GroupResource = configmaps
	s, err := b.ForResource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newCM(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Data: map[string]string{"password": secretValue}}
}

func setData(v string) storage.UpdateFunc {
	return func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
		cm := in.(*corev1.ConfigMap).DeepCopy()
		cm.Data["password"] = v
		return cm, nil
	}
}

func unchanged(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
	return in.DeepCopyObject(), nil
}

// TestTransformerEncryptsValues writes through an aesgcm transformer and
// checks the raw KV bytes are kube-apiserver's layout bound to the full etcd
// key, while every read path returns cleartext.
func TestTransformerEncryptsValues(t *testing.T) {
	ctx := t.Context()
	kv := newTestKV()
	s := newStore(t, kv, gcmKeys(t, "k1"))
	key := storagetest.ConfigMapKey("ns", "a")

	created := &corev1.ConfigMap{}
	if err := s.Create(ctx, key, newCM("a"), created); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.Data["password"] != secretValue {
		t.Errorf("Create returned %v", created.Data)
	}
	raw, _, _ := kv.raw(key)
	const prefix = "k8s:enc:aesgcm:v1:k1:"
	if !bytes.HasPrefix(raw, []byte(prefix)) || bytes.Contains(raw, []byte(secretValue)) {
		t.Fatalf("raw value %q is not encrypted", raw)
	}
	block, _ := aes.NewCipher(keyK1)
	gcm, _ := cipher.NewGCM(block)
	body := raw[len(prefix):]
	plain, err := gcm.Open(nil, body[:12], body[12:], []byte(etcdPrefix+key))
	if err != nil || !bytes.HasPrefix(plain, []byte("k8s\x00")) {
		t.Fatalf("opening the raw value by hand with the etcd key: (%q, %v)", plain, err)
	}

	got := &corev1.ConfigMap{}
	if err := s.Get(ctx, key, storage.GetOptions{}, got); err != nil || got.Data["password"] != secretValue {
		t.Fatalf("Get = (%v, %v)", got.Data, err)
	}
	list := &corev1.ConfigMapList{}
	if err := s.GetList(ctx, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil ||
		len(list.Items) != 1 || list.Items[0].Data["password"] != secretValue {
		t.Fatalf("GetList = (%v, %v)", list.Items, err)
	}

	w, err := s.Watch(ctx, "/configmaps/ns", storage.ListOptions{Recursive: true, ResourceVersion: created.ResourceVersion, Predicate: storage.Everything})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	updated := &corev1.ConfigMap{}
	if err := s.GuaranteedUpdate(ctx, key, updated, false, nil, setData("changed")); err != nil {
		t.Fatalf("GuaranteedUpdate: %v", err)
	}
	if raw, _, _ := kv.raw(key); bytes.Contains(raw, []byte("changed")) {
		t.Fatal("updated value stored in the clear")
	}
	if err := s.Delete(ctx, key, &corev1.ConfigMap{}, nil, nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	for _, want := range []struct {
		typ  watch.EventType
		data string
	}{{watch.Modified, "changed"}, {watch.Deleted, "changed"}} {
		ev := next(t, w)
		if cm, ok := ev.Object.(*corev1.ConfigMap); ev.Type != want.typ || !ok || cm.Data["password"] != want.data {
			t.Fatalf("watch event %s %#v, want %s with %q", ev.Type, ev.Object, want.typ, want.data)
		}
	}
}

func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

// TestNoTransformerStoresEncoded: a resource without a transformer keeps
// the codec's bytes.
func TestNoTransformerStoresEncoded(t *testing.T) {
	kv := newTestKV()
	s := newStore(t, kv, nil)
	key := storagetest.ConfigMapKey("ns", "a")
	if err := s.Create(t.Context(), key, newCM("a"), nil); err != nil {
		t.Fatal(err)
	}
	if raw, _, _ := kv.raw(key); !bytes.HasPrefix(raw, []byte("k8s\x00")) || !bytes.Contains(raw, []byte(secretValue)) {
		t.Fatalf("raw value %q, want the protobuf encoding", raw)
	}
}

// TestStaleValuesAreRewritten: after key rotation an update that changes
// nothing still rewrites a value written with the old key, and leaves a
// current one alone.
func TestStaleValuesAreRewritten(t *testing.T) {
	ctx := t.Context()
	kv := newTestKV()
	key := storagetest.ConfigMapKey("ns", "a")
	if err := newStore(t, kv, gcmKeys(t, "k1")).Create(ctx, key, newCM("a"), nil); err != nil {
		t.Fatal(err)
	}
	_, oldRev, _ := kv.raw(key)

	rotated := newStore(t, kv, gcmKeys(t, "k2", "k1"))
	out := &corev1.ConfigMap{}
	if err := rotated.GuaranteedUpdate(ctx, key, out, false, nil, unchanged); err != nil {
		t.Fatalf("GuaranteedUpdate: %v", err)
	}
	raw, rev, _ := kv.raw(key)
	if !bytes.HasPrefix(raw, []byte("k8s:enc:aesgcm:v1:k2:")) || rev == oldRev {
		t.Fatalf("stale value not rewritten: %q at %d (was %d)", raw, rev, oldRev)
	}
	if out.ResourceVersion == "" || out.Data["password"] != secretValue {
		t.Errorf("update returned %v@%s", out.Data, out.ResourceVersion)
	}

	if err := rotated.GuaranteedUpdate(ctx, key, &corev1.ConfigMap{}, false, nil, unchanged); err != nil {
		t.Fatal(err)
	}
	if _, again, _ := kv.raw(key); again != rev {
		t.Errorf("a current value was rewritten (%d -> %d)", rev, again)
	}
}

// TestUnreadableValues: a value the transformer cannot read fails every
// read path with an error naming the etcd key, never with cleartext.
func TestUnreadableValues(t *testing.T) {
	ctx := t.Context()
	kv := newTestKV()
	key := storagetest.ConfigMapKey("ns", "a")
	if err := newStore(t, kv, gcmKeys(t, "k1")).Create(ctx, key, newCM("a"), nil); err != nil {
		t.Fatal(err)
	}
	plainOnly := value.NewPrefixTransformers(errors.New("no matching prefix found"),
		value.PrefixTransformer{Prefix: []byte{}, Transformer: identity.NewEncryptCheckTransformer()})
	wrongKey := gcmKeys(t, "k2")
	for name, tr := range map[string]value.Transformer{"identity only": plainOnly, "wrong key": wrongKey} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t, kv, tr)
			wantErr := func(op string, err error) {
				t.Helper()
				if err == nil || !strings.Contains(err.Error(), `unable to transform key "/registry/configmaps/ns/a"`) {
					t.Errorf("%s: err = %v", op, err)
				}
			}
			wantErr("Get", s.Get(ctx, key, storage.GetOptions{}, &corev1.ConfigMap{}))
			wantErr("GetList", s.GetList(ctx, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, &corev1.ConfigMapList{}))
			wantErr("GuaranteedUpdate", s.GuaranteedUpdate(ctx, key, &corev1.ConfigMap{}, false, nil, unchanged))
			wantErr("Delete", s.Delete(ctx, key, &corev1.ConfigMap{}, nil, nil))

			w, err := s.Watch(ctx, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.Everything})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ev := next(t, w)
			if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || !strings.Contains(st.Message, "unable to transform key") {
				t.Fatalf("watch event %s %#v, want an Error", ev.Type, ev.Object)
			}
		})
	}
}

// failingWriter refuses every write.
type failingWriter struct{ value.Transformer }

func (failingWriter) TransformToStorage(context.Context, []byte, value.Context) ([]byte, error) {
	return nil, errors.New("kms down")
}

func TestTransformWriteError(t *testing.T) {
	kv := newTestKV()
	s := newStore(t, kv, failingWriter{})
	key := storagetest.ConfigMapKey("ns", "a")
	err := s.Create(t.Context(), key, newCM("a"), nil)
	if err == nil || !strings.Contains(err.Error(), "kms down") {
		t.Fatalf("Create err = %v", err)
	}
	if _, _, ok := kv.raw(key); ok {
		t.Fatal("a value was written despite the transformer failing")
	}
}
