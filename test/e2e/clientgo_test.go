package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// clientsets returns a JSON and a protobuf typed client for k.
func clientsets(t *testing.T, k *framework.Kapi) map[string]kubernetes.Interface {
	t.Helper()
	out := map[string]kubernetes.Interface{}
	for name, ct := range map[string]string{"json": "application/json", "protobuf": "application/vnd.kubernetes.protobuf"} {
		cfg := rest.CopyConfig(k.RESTConfig())
		cfg.ContentType = ct
		cfg.AcceptContentTypes = ct
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = cs
	}
	return out
}

func createNamespace(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// clientGoCRUD drives the typed clientset through every verb, in JSON and
// in protobuf.
func clientGoCRUD(t *testing.T, k *framework.Kapi) {
	ctx := context.Background()
	for encoding, cs := range clientsets(t, k) {
		t.Run(encoding, func(t *testing.T) {
			ns := "crud-" + encoding
			createNamespace(t, cs, ns)
			cms := cs.CoreV1().ConfigMaps(ns)

			created, err := cms.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-", Labels: map[string]string{"app": "x"}},
				Data:       map[string]string{"k": "v"},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() || len(created.Name) != len("gen-")+5 {
				t.Fatalf("server-set metadata missing: %+v", created.ObjectMeta)
			}

			got, err := cms.Get(ctx, created.Name, metav1.GetOptions{})
			if err != nil || got.Data["k"] != "v" {
				t.Fatalf("get: %v %+v", err, got)
			}

			got.Data["k"] = "v2"
			updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
			if err != nil || updated.ResourceVersion == got.ResourceVersion {
				t.Fatalf("update: %v (rv %s → %s)", err, got.ResourceVersion, updated.ResourceVersion)
			}
			// A stale write loses with 409.
			got.Data["k"] = "stale"
			if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Fatalf("stale update: got %v, want Conflict", err)
			}

			for i := range 5 {
				if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("page-%d", i)}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			page, err := cms.List(ctx, metav1.ListOptions{Limit: 2})
			if err != nil || len(page.Items) != 2 || page.Continue == "" {
				t.Fatalf("first page: %v items=%d continue=%q", err, len(page.Items), page.Continue)
			}
			seen := ownConfigMaps(page.Items, configMapName)
			for page.Continue != "" {
				page, err = cms.List(ctx, metav1.ListOptions{Limit: 2, Continue: page.Continue})
				if err != nil {
					t.Fatalf("next page: %v", err)
				}
				seen += ownConfigMaps(page.Items, configMapName)
			}
			if seen != 6 {
				t.Fatalf("paged list saw %d configmaps, want 6", seen)
			}

			selected, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
			if err != nil || len(selected.Items) != 1 {
				t.Fatalf("label selector: %v %d", err, len(selected.Items))
			}
			byName, err := cms.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=page-3"})
			if err != nil || len(byName.Items) != 1 || byName.Items[0].Name != "page-3" {
				t.Fatalf("field selector: %v %+v", err, byName.Items)
			}

			if err := cms.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := cms.Get(ctx, created.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("get after delete: %v", err)
			}
			if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				t.Fatalf("deletecollection: %v", err)
			}
			// The root CA publisher puts kube-root-ca.crt back at once.
			left, err := cms.List(ctx, metav1.ListOptions{})
			if n := ownConfigMaps(left.Items, configMapName); err != nil || n != 0 {
				t.Fatalf("after deletecollection: %v %d left", err, n)
			}
		})
	}
}

// informerSync checks that a shared informer (list + watch) sees creates,
// updates and deletes.
func informerSync(t *testing.T, k *framework.Kapi) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := k.Clientset()
	createNamespace(t, cs, "informed")

	events := make(chan string, 100)
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("informed"))
	inf := factory.Core().V1().ConfigMaps()
	_, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { events <- "add " + obj.(*corev1.ConfigMap).Name },
		UpdateFunc: func(_, obj any) {
			events <- "update " + obj.(*corev1.ConfigMap).Name + " " + obj.(*corev1.ConfigMap).Data["v"]
		},
		DeleteFunc: func(obj any) {
			if cm, ok := obj.(*corev1.ConfigMap); ok {
				events <- "delete " + cm.Name
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced) {
		t.Fatal("informer never synced")
	}

	cms := cs.CoreV1().ConfigMaps("informed")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectEvent(t, ctx, events, "add watched")
	cm.Data["v"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, ctx, events, "update watched 2")
	if err := cms.Delete(ctx, "watched", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, ctx, events, "delete watched")

	listed, err := inf.Lister().ConfigMaps("informed").List(labels.Everything())
	if n := ownConfigMaps(listed, func(cm *corev1.ConfigMap) string { return cm.Name }); err != nil || n != 0 {
		t.Fatalf("lister after delete: %v %d", err, n)
	}
}

func expectEvent(t *testing.T, ctx context.Context, events <-chan string, want string) {
	t.Helper()
	for {
		select {
		case got := <-events:
			if got == want {
				return
			}
		case <-ctx.Done():
			t.Fatalf("informer never delivered %q", want)
		}
	}
}
