package e2e

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

const databaseCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: databases.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: databases, singular: database, kind: Database}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
          status:
            type: object
            properties:
              phase: {type: string}
              observedGeneration: {type: integer, format: int64}
`

// databaseFinalizer guards the cleanup of a Database's ConfigMap.
const databaseFinalizer = "example.com/cleanup"

var databaseGV = schema.GroupVersion{Group: "example.com", Version: "v1"}

// Database is the hand-written Go type of the custom resource, as an
// operator author writes it (without generated deep copies).
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              DatabaseSpec   `json:"spec,omitempty"`
	Status            DatabaseStatus `json:"status,omitempty"`
}

type DatabaseSpec struct {
	Size int64 `json:"size,omitempty"`
}

type DatabaseStatus struct {
	Phase              string `json:"phase,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

type DatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Database `json:"items"`
}

func (d *Database) DeepCopyObject() runtime.Object {
	out := *d
	d.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (l *DatabaseList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Database, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Database)
	}
	return &out
}

// databaseReconciler keeps a ConfigMap per Database, reports Ready in
// status, and deletes the ConfigMap before letting the Database go.
type databaseReconciler struct {
	client.Client
}

func (r *databaseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var db Database
	if err := r.Get(ctx, req.NamespacedName, &db); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: db.Name + "-config", Namespace: db.Namespace}}
	if !db.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(&db, databaseFinalizer) {
			return ctrl.Result{}, nil
		}
		if err := r.Delete(ctx, cm); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		controllerutil.RemoveFinalizer(&db, databaseFinalizer)
		return ctrl.Result{}, r.Update(ctx, &db)
	}
	if controllerutil.AddFinalizer(&db, databaseFinalizer) {
		if err := r.Update(ctx, &db); err != nil {
			return ctrl.Result{}, err
		}
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"size": strconv.FormatInt(db.Spec.Size, 10)}
		return controllerutil.SetControllerReference(&db, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	if db.Status.Phase == "Ready" && db.Status.ObservedGeneration == db.Generation {
		return ctrl.Result{}, nil
	}
	db.Status.Phase, db.Status.ObservedGeneration = "Ready", db.Generation
	return ctrl.Result{}, r.Status().Update(ctx, &db)
}

// lockedBuffer collects the controller's log for a failing test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startDatabaseManager runs a controller-runtime manager with the
// Database controller until the returned stop function is called; stop
// fails the test unless the manager returns cleanly.
func startDatabaseManager(t *testing.T, k *framework.Kapi) (stop func()) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	scheme.AddKnownTypes(databaseGV, &Database{}, &DatabaseList{})
	metav1.AddToGroupVersion(scheme, databaseGV)

	logs := &lockedBuffer{}
	logger := logr.FromSlogHandler(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctrllog.SetLogger(logger)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("controller-runtime log:\n%s", logs)
		}
	})

	mgr, err := ctrl.NewManager(k.RESTConfig(), ctrl.Options{
		Scheme:                 scheme,
		Logger:                 logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		t.Fatal(err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&Database{}).
		Owns(&corev1.ConfigMap{}).
		// -count=N runs this in one process; names must be unique there.
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(&databaseReconciler{Client: mgr.GetClient()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager stopped with %v", err)
		}
	}
}

// TestCRDControllerRuntime runs a controller built with controller-runtime
// (manager, cache, reconciler with a finalizer and status writes) against
// kapi and checks that it does its job.
func TestCRDControllerRuntime(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	ctx := t.Context()
	cs := k.Clientset()
	createNamespace(t, cs, "ops")
	applyCRD(t, k, databaseCRD, "databases.example.com")
	stop := startDatabaseManager(t, k)
	defer stop()

	dbs := dynamicFor(t, k, nil).Resource(gvr("example.com", "v1", "databases")).Namespace("ops")
	created, err := dbs.Create(ctx, newCR("example.com/v1", "Database", "main", map[string]any{"size": int64(1)}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// state reads the Database as "phase observedGeneration/generation
	// finalizers" and its ConfigMap's size.
	state := func(ctx context.Context) (string, error) {
		db, err := dbs.Get(ctx, "main", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		phase, _, _ := unstructured.NestedString(db.Object, "status", "phase")
		observed, _, _ := unstructured.NestedInt64(db.Object, "status", "observedGeneration")
		cm, err := cs.CoreV1().ConfigMaps("ops").Get(ctx, "main-config", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		owner := "none"
		if ref := metav1.GetControllerOf(cm); ref != nil && ref.UID == created.GetUID() {
			owner = ref.Kind + "/" + ref.Name
		}
		return fmt.Sprintf("%s %d/%d %v cm size=%s owner=%s", phase, observed, db.GetGeneration(), db.GetFinalizers(), cm.Data["size"], owner), nil
	}
	waitState := func(want string) {
		t.Helper()
		eventually(t, "database state "+want, func(ctx context.Context) (bool, error) {
			got, err := state(ctx)
			if err == nil && got != want {
				err = fmt.Errorf("state is %q", got)
			}
			return err == nil, err
		})
	}
	waitState("Ready 1/1 [example.com/cleanup] cm size=1 owner=Database/main")

	if _, err := dbs.Patch(ctx, "main", types.MergePatchType, []byte(`{"spec":{"size":3}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitState("Ready 2/2 [example.com/cleanup] cm size=3 owner=Database/main")

	if err := dbs.Delete(ctx, "main", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "database and its ConfigMap gone", func(ctx context.Context) (bool, error) {
		_, err := dbs.Get(ctx, "main", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, err
		}
		_, err = cs.CoreV1().ConfigMaps("ops").Get(ctx, "main-config", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
