package serviceaccount

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

func namespace(name string, phase corev1.NamespacePhase) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: phase}}
}

// TestSync pins upstream's rules: the default service account is made in
// an active namespace that lacks it, and nowhere else.
func TestSync(t *testing.T) {
	terminating := apierrors.NewForbidden(schema.GroupResource{Resource: "serviceaccounts"}, "default", nil)
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
	tests := []struct {
		name       string
		ns         *corev1.Namespace
		existing   *corev1.ServiceAccount
		createErr  error
		wantCreate bool
		wantErr    bool
	}{
		{name: "active namespace without it", ns: namespace("x", corev1.NamespaceActive), wantCreate: true},
		{name: "active namespace with it", ns: namespace("x", corev1.NamespaceActive),
			existing: &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "x"}}},
		{name: "terminating namespace", ns: namespace("x", corev1.NamespaceTerminating)},
		{name: "namespace gone"},
		{name: "created meanwhile", ns: namespace("x", corev1.NamespaceActive), wantCreate: true,
			createErr: apierrors.NewAlreadyExists(schema.GroupResource{Resource: "serviceaccounts"}, "default")},
		{name: "namespace began terminating", ns: namespace("x", corev1.NamespaceActive), wantCreate: true, createErr: terminating},
		{name: "create fails", ns: namespace("x", corev1.NamespaceActive), wantCreate: true,
			createErr: apierrors.NewInternalError(context.DeadlineExceeded), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			if tt.createErr != nil {
				client.PrependReactor("create", "serviceaccounts", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, tt.createErr
				})
			}
			f := informers.NewSharedInformerFactory(client, 0)
			sas, nss := f.Core().V1().ServiceAccounts(), f.Core().V1().Namespaces()
			c, err := New(client, sas, nss, []string{DefaultName}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.ns != nil {
				_ = nss.Informer().GetIndexer().Add(tt.ns)
			}
			if tt.existing != nil {
				_ = sas.Informer().GetIndexer().Add(tt.existing)
			}
			err = c.sync(context.Background(), "x")
			if (err != nil) != tt.wantErr {
				t.Fatalf("sync: err %v, want error %v", err, tt.wantErr)
			}
			var created []string
			for _, a := range client.Actions() {
				if ca, ok := a.(clienttesting.CreateAction); ok {
					created = append(created, ca.GetNamespace()+"/"+ca.GetObject().(*corev1.ServiceAccount).Name)
				}
			}
			if got := len(created) == 1 && created[0] == "x/default"; got != tt.wantCreate || len(created) > 1 {
				t.Errorf("created %v, want x/default created: %v", created, tt.wantCreate)
			}
		})
	}
}
