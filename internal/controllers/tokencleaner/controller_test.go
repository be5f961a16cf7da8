package tokencleaner

import (
	"context"
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"
)

var now = time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)

func tokenSecret(name, namespace string, typ corev1.SecretType, expiration string) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID("uid-" + name)},
		Type:       typ,
		Data:       map[string][]byte{"token-id": []byte("abcdef"), "token-secret": []byte("0123456789abcdef")},
	}
	if expiration != "" {
		s.Data["expiration"] = []byte(expiration)
	}
	return s
}

// TestSync pins upstream's token cleaner: an expired or unparseable
// expiration deletes the Secret (with a UID precondition), a later one
// is looked at again when it passes, no expiration or another type or
// namespace is left alone.
func TestSync(t *testing.T) {
	boot := corev1.SecretTypeBootstrapToken
	tests := []struct {
		name        string
		secret      *corev1.Secret
		wantDeleted bool
		wantAfter   time.Duration
	}{
		{"expired", tokenSecret("bootstrap-token-abcdef", "kube-system", boot, now.Add(-time.Second).Format(time.RFC3339)), true, 0},
		{"expires now", tokenSecret("bootstrap-token-abcdef", "kube-system", boot, now.Format(time.RFC3339)), true, 0},
		{"unparseable", tokenSecret("bootstrap-token-abcdef", "kube-system", boot, "tomorrow"), true, 0},
		{"expires in an hour", tokenSecret("bootstrap-token-abcdef", "kube-system", boot, now.Add(time.Hour).Format(time.RFC3339)), false, time.Hour},
		{"no expiration", tokenSecret("bootstrap-token-abcdef", "kube-system", boot, ""), false, 0},
		{"opaque", tokenSecret("bootstrap-token-abcdef", "kube-system", corev1.SecretTypeOpaque, "tomorrow"), false, 0},
		{"other namespace", tokenSecret("bootstrap-token-abcdef", "default", boot, "tomorrow"), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(tt.secret)
			f := informers.NewSharedInformerFactory(client, 0)
			c, err := New(client, f.Core().V1().Secrets(), testingclock.NewFakePassiveClock(now), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			var after time.Duration
			c.requeue = func(_ string, d time.Duration) { after = d }
			if err := f.Core().V1().Secrets().Informer().GetIndexer().Add(tt.secret); err != nil {
				t.Fatal(err)
			}
			if err := c.Sync(context.Background(), tt.secret.Namespace+"/"+tt.secret.Name); err != nil {
				t.Fatal(err)
			}
			deleted := false
			for _, a := range client.Actions() {
				if a.GetVerb() == "delete" {
					deleted = true
					uid := a.(interface{ GetDeleteOptions() metav1.DeleteOptions }).GetDeleteOptions().Preconditions.UID
					if uid == nil || *uid != tt.secret.UID {
						t.Errorf("delete precondition UID = %v, want %s", uid, tt.secret.UID)
					}
				}
			}
			if deleted != tt.wantDeleted {
				t.Errorf("deleted = %v, want %v", deleted, tt.wantDeleted)
			}
			if after != tt.wantAfter {
				t.Errorf("requeued after %v, want %v", after, tt.wantAfter)
			}
		})
	}
}

// TestSyncMissing: a Secret gone from the cache is nothing to do.
func TestSyncMissing(t *testing.T) {
	client := fake.NewClientset()
	f := informers.NewSharedInformerFactory(client, 0)
	c, err := New(client, f.Core().V1().Secrets(), testingclock.NewFakePassiveClock(now), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(context.Background(), "kube-system/bootstrap-token-abcdef"); err != nil {
		t.Fatal(err)
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d actions, want none", n)
	}
}
