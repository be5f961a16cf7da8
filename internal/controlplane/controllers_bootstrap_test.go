package controlplane

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/controllers/bootstrapsigner"
)

// TestBootstrapTokenControllers runs the bootstrap signer and the token
// cleaner (off by default, as upstream) behind a real server: a signing
// token signs kube-public/cluster-info's kubeconfig, and an expired
// token Secret is deleted, its signature with it.
func TestBootstrapTokenControllers(t *testing.T) {
	s := startConfiguredServer(t, "bootstrap", func(c *Config) {
		c.Controllers = []string{"bootstrapsigner", "tokencleaner"}
	})
	ctx := context.Background()
	cs := s.client
	token := func(id string, expiration time.Time) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-" + id, Namespace: "kube-system"},
			Type:       corev1.SecretTypeBootstrapToken,
			StringData: map[string]string{"token-id": id, "token-secret": "0123456789abcdef",
				"usage-bootstrap-signing": "true", "expiration": expiration.UTC().Format(time.RFC3339)},
		}
	}
	if _, err := cs.CoreV1().ConfigMaps("kube-public").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-info"},
		Data:       map[string]string{"kubeconfig": "apiVersion: v1\nkind: Config\n"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("kube-system").Create(ctx, token("abcdef", time.Now().Add(time.Hour)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "cluster-info signed", func(ctx context.Context) (bool, error) {
		cm, err := cs.CoreV1().ConfigMaps("kube-public").Get(ctx, "cluster-info", metav1.GetOptions{})
		return err == nil && cm.Data[bootstrapsigner.SignaturePrefix+"abcdef"] != "", err
	})
	// An already expired token is never a signer and is deleted.
	if _, err := cs.CoreV1().Secrets("kube-system").Create(ctx, token("expire", time.Now().Add(-time.Minute)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "expired token deleted", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Secrets("kube-system").Get(ctx, "bootstrap-token-expire", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	// Deleting the signing token removes its signature.
	if err := cs.CoreV1().Secrets("kube-system").Delete(ctx, "bootstrap-token-abcdef", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "signature removed", func(ctx context.Context) (bool, error) {
		cm, err := cs.CoreV1().ConfigMaps("kube-public").Get(ctx, "cluster-info", metav1.GetOptions{})
		_, signed := cm.Data[bootstrapsigner.SignaturePrefix+"abcdef"]
		return err == nil && !signed, err
	})
}
