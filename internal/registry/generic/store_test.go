package generic_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// TestMain fails the package when a test leaves a goroutine of this
// package (DeleteCollection's workers) running.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := waitForLeaks(5 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// waitForLeaks returns the stacks of goroutines still running code of this
// package, waiting up to limit for them to end.
func waitForLeaks(limit time.Duration) string {
	deadline := time.Now().Add(limit)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaked []string
		for g := range strings.SplitSeq(string(buf), "\n\n") {
			if strings.Contains(g, "internal/registry/generic.") && !strings.Contains(g, "generic_test.waitForLeaks") {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
}

// restOptions hands stores their storage from one memory backend, as the
// control plane does from its backend.
type restOptions struct {
	backend storage.Backend
	codec   kruntime.Codec
}

func (o restOptions) GetRESTOptions(resource schema.GroupResource, _ kruntime.Object) (generic.RESTOptions, error) {
	prefix := "/" + resource.Resource
	return generic.RESTOptions{
		ResourcePrefix: prefix,
		Storage: func(newFunc, newListFunc func() kruntime.Object) (storage.Interface, error) {
			return o.backend.ForResource(storage.ResourceConfig{
				Codec: o.codec, NewFunc: newFunc, NewListFunc: newListFunc, ResourcePrefix: prefix,
			})
		},
	}, nil
}

// newStore returns a completed ConfigMap store over a fresh memory
// backend; edit may change the store or its strategy before completion.
func newStore(t *testing.T, edit func(s *generic.Store, strategy *resttest.ConfigMapStrategy)) *generic.Store {
	t.Helper()
	s, _ := newStoreWithBackend(t, edit)
	return s
}

// newStoreWithBackend is newStore that also returns the backend, for tests
// that compact it.
func newStoreWithBackend(t *testing.T, edit func(s *generic.Store, strategy *resttest.ConfigMapStrategy)) (*generic.Store, *memory.Backend) {
	t.Helper()
	scheme := resttest.NewScheme()
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(corev1.SchemeGroupVersion)
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })

	strategy := resttest.NewConfigMapStrategy(scheme)
	s := &generic.Store{
		NewFunc:                   func() kruntime.Object { return &corev1.ConfigMap{} },
		NewListFunc:               func() kruntime.Object { return &corev1.ConfigMapList{} },
		DefaultQualifiedResource:  corev1.Resource("configmaps"),
		SingularQualifiedResource: corev1.Resource("configmap"),
	}
	if edit != nil {
		edit(s, &strategy)
	}
	if s.CreateStrategy == nil {
		s.CreateStrategy, s.UpdateStrategy, s.DeleteStrategy = strategy, strategy, strategy
	}
	if err := s.CompleteWithOptions(&generic.StoreOptions{RESTOptions: restOptions{backend: backend, codec: codec}}); err != nil {
		t.Fatalf("CompleteWithOptions: %v", err)
	}
	t.Cleanup(s.Destroy)
	return s, backend
}

// nsContext is a request context in namespace ns.
func nsContext(ns string) context.Context {
	return request.WithNamespace(context.Background(), ns)
}

func newConfigMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

// mustCreate creates obj in its namespace and returns the stored object.
func mustCreate(t *testing.T, s *generic.Store, obj *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	out, err := s.Create(nsContext(obj.Namespace), obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s/%s: %v", obj.Namespace, obj.Name, err)
	}
	return out.(*corev1.ConfigMap)
}

// mustGet reads ns/name, failing the test when it is not there.
func mustGet(t *testing.T, s *generic.Store, ns, name string) *corev1.ConfigMap {
	t.Helper()
	out, err := s.Get(nsContext(ns), name, &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s/%s: %v", ns, name, err)
	}
	return out.(*corev1.ConfigMap)
}

// wantNotFound fails unless ns/name is gone.
func wantNotFound(t *testing.T, s *generic.Store, ns, name string) {
	t.Helper()
	_, err := s.Get(nsContext(ns), name, &metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("get %s/%s: err = %v, want NotFound", ns, name, err)
	}
}

// wantStatus checks err against a status code and message; code 0
// expects no error.
func wantStatus(t *testing.T, err error, code int32, message string) {
	t.Helper()
	if code == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("error %v (%T) is not an API status, want %d %q", err, err, code, message)
	}
	// A message ending in "..." is a prefix (for messages that carry a uid).
	matches := func(got string) bool {
		if prefix, ok := strings.CutSuffix(message, "..."); ok {
			return strings.HasPrefix(got, prefix)
		}
		return got == message
	}
	if s := status.Status(); s.Code != code || !matches(s.Message) {
		t.Fatalf("got %d %q, want %d %q", s.Code, s.Message, code, message)
	}
}
