package serviceaccounttoken

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

const rootCA = "CA"

func account(uid string, secrets ...string) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "x", UID: k8stypes.UID("sa-" + uid)}}
	for _, s := range secrets {
		sa.Secrets = append(sa.Secrets, corev1.ObjectReference{Name: s})
	}
	return sa
}

func tokenSecret(saUID string, data map[string][]byte) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "tok", Namespace: "x", UID: "secret-uid",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
		Type: corev1.SecretTypeServiceAccountToken, Data: data,
	}
	if saUID != "" {
		s.Annotations[corev1.ServiceAccountUIDKey] = "sa-" + saUID
	}
	return s
}

type fixture struct {
	client *fake.Clientset
	c      *Controller
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	sas, secrets := f.Core().V1().ServiceAccounts(), f.Core().V1().Secrets()
	gen := func(ns, name, uid, secret string) (string, error) {
		return "token:" + ns + "/" + name + "/" + uid + "/" + secret, nil
	}
	c, err := New(client, sas, secrets.Informer(), gen, []byte(rootCA), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.ServiceAccount:
			_ = sas.Informer().GetIndexer().Add(o)
		case *corev1.Secret:
			_ = secrets.Informer().GetIndexer().Add(o)
		}
	}
	client.ClearActions()
	return &fixture{client: client, c: c}
}

func (f *fixture) secret(t *testing.T) *corev1.Secret {
	t.Helper()
	s, err := f.client.CoreV1().Secrets("x").Get(context.Background(), "tok", metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return s
}

// TestSyncSecretFills pins what the tokens controller writes into a
// token Secret: a token for the account, ca.crt, the namespace, and the
// account's name and UID annotations.
func TestSyncSecretFills(t *testing.T) {
	f := newFixture(t, account("1"), tokenSecret("", nil))
	if err := f.c.syncSecret(context.Background(), secretKey{namespace: "x", name: "tok", uid: "secret-uid"}); err != nil {
		t.Fatal(err)
	}
	s := f.secret(t)
	want := map[string]string{
		corev1.ServiceAccountTokenKey:     "token:x/default/sa-1/tok",
		corev1.ServiceAccountRootCAKey:    rootCA,
		corev1.ServiceAccountNamespaceKey: "x",
	}
	for k, v := range want {
		if string(s.Data[k]) != v {
			t.Errorf("data[%s] = %q, want %q", k, s.Data[k], v)
		}
	}
	if s.Annotations[corev1.ServiceAccountUIDKey] != "sa-1" {
		t.Errorf("annotations %v lack the account's UID", s.Annotations)
	}
	// A filled secret is not written again.
	f = newFixture(t, account("1"), s)
	if err := f.c.syncSecret(context.Background(), secretKey{namespace: "x", name: "tok", uid: "secret-uid"}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.client.Actions()); n != 0 {
		t.Errorf("a filled secret caused %d requests: %v", n, f.client.Actions())
	}
}

// TestSyncSecretOfMissingAccount: a token Secret whose account does not
// exist, or exists with another UID, is deleted.
func TestSyncSecretOfMissingAccount(t *testing.T) {
	for name, objs := range map[string][]runtime.Object{
		"no account":        {tokenSecret("1", nil)},
		"account recreated": {account("2"), tokenSecret("1", nil)},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, objs...)
			if err := f.c.syncSecret(context.Background(), secretKey{namespace: "x", name: "tok", uid: "secret-uid"}); err != nil {
				t.Fatal(err)
			}
			if f.secret(t) != nil {
				t.Error("the secret of a missing account was kept")
			}
		})
	}
}

// TestSyncAccountDeleted: deleting an account deletes its token Secrets.
func TestSyncAccountDeleted(t *testing.T) {
	f := newFixture(t, tokenSecret("1", nil))
	if err := f.c.syncAccount(context.Background(), accountKey{namespace: "x", name: "default", uid: "sa-1"}); err != nil {
		t.Fatal(err)
	}
	if f.secret(t) != nil {
		t.Error("the token of a deleted account was kept")
	}
}

// TestSyncDeletedSecretDropsReference: a deleted token Secret leaves its
// account's secrets list.
func TestSyncDeletedSecretDropsReference(t *testing.T) {
	f := newFixture(t, account("1", "tok", "other"))
	if err := f.c.syncSecret(context.Background(), secretKey{namespace: "x", name: "tok", uid: "secret-uid", saName: "default", saUID: "sa-1"}); err != nil {
		t.Fatal(err)
	}
	sa, err := f.client.CoreV1().ServiceAccounts("x").Get(context.Background(), "default", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.Secrets) != 1 || sa.Secrets[0].Name != "other" {
		t.Errorf("secrets = %v, want only other", sa.Secrets)
	}
}
