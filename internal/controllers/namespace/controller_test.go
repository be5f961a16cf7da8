package namespace

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	"github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// TestDeletesContentThenNamespace marks a namespace with content for
// deletion and waits for the controller to empty and remove it.
func TestDeletesContentThenNamespace(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	getter := registrytest.NewOptionsGetter(t, scheme)
	nsREST, _, finalizeREST, err := namespace.NewREST(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	cmREST, err := configmap.NewREST(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if _, err := nsREST.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nsCtx := registrytest.NamespaceContext("doomed")
	if _, err := cmREST.Create(nsCtx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "content"}}, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	c := New(nsREST, finalizeREST, map[string]ContentStorage{"configmaps": cmREST}, nil)
	c.retry = 10 * time.Millisecond
	done := make(chan struct{})
	runCtx, stop := context.WithCancel(ctx)
	go func() { c.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	if _, deleted, err := nsREST.Delete(ctx, "doomed", rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil || deleted {
		t.Fatalf("delete: deleted=%v err=%v; want marked only", deleted, err)
	}
	for {
		_, err := nsREST.Get(ctx, "doomed", &metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("namespace never went away: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := cmREST.Get(nsCtx, "content", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("content survived its namespace: %v", err)
	}
}
