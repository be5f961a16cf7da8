package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/test/e2e/framework"
	"github.com/kapi-dev/kapi/test/tools/etcd/etcdcluster"
)

// encryptionConfig is an EncryptionConfiguration for secrets with aescbc
// keys named by keys, in order (the first writes), then identity.
func encryptionConfig(keys ...string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n")
	for _, k := range keys {
		secret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte(k[len(k)-1:]), 32))
		b.WriteString("      - name: " + k + "\n        secret: " + secret + "\n")
	}
	b.WriteString("  - identity: {}\n")
	return []byte(b.String())
}

// TestEncryptionAtRest: a Secret written under aescbc is ciphertext in
// etcd with kube-apiserver's prefix, reads back after a restart, and is
// rewritten under the new key after a rotation.
func TestEncryptionAtRest(t *testing.T) {
	cluster := etcdcluster.Start(t, etcdcluster.Options{Members: 1})
	config := writeTestFile(t, "encryption.yaml", encryptionConfig("key1"))
	k := framework.StartKapi(t, framework.WithArgs("--etcd-servers", strings.Join(cluster.Endpoints(), ","),
		"--encryption-provider-config", config))
	etcd := cluster.Client(t)
	ctx := context.Background()
	raw := func() []byte {
		t.Helper()
		resp, err := etcd.Get(ctx, "/registry/secrets/default/s1")
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("reading the raw secret: %v (%d keys)", err, len(resp.Kvs))
		}
		return resp.Kvs[0].Value
	}

	cs := k.Clientset()
	_, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s1"}, StringData: map[string]string{"password": "hunter2-plaintext"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := raw()
	if !bytes.HasPrefix(stored, []byte("k8s:enc:aescbc:v1:key1:")) || bytes.Contains(stored, []byte("hunter2-plaintext")) {
		t.Fatalf("secret in etcd is not aescbc ciphertext under key1: %q", stored[:min(len(stored), 60)])
	}
	// ConfigMaps are not in the configuration: stored as they are.
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, newConfigMap("plain", "k", "visible-value"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if resp, err := etcd.Get(ctx, "/registry/configmaps/default/plain"); err != nil || !bytes.Contains(resp.Kvs[0].Value, []byte("visible-value")) {
		t.Errorf("configmap should be stored unencrypted: %v", err)
	}

	if err := k.Stop(); err != nil {
		t.Fatal(err)
	}
	k = k.Restart(t)
	readBack := func() {
		t.Helper()
		s, err := k.Clientset().CoreV1().Secrets("default").Get(ctx, "s1", metav1.GetOptions{})
		if err != nil || string(s.Data["password"]) != "hunter2-plaintext" {
			t.Fatalf("secret after restart: %v %q", err, s.Data)
		}
	}
	readBack()

	// Rotation: key2 first, key1 still readable; an update rewrites.
	if err := os.WriteFile(config, encryptionConfig("key2", "key1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := k.Stop(); err != nil {
		t.Fatal(err)
	}
	k = k.Restart(t)
	readBack()
	s, err := k.Clientset().CoreV1().Secrets("default").Get(ctx, "s1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Clientset().CoreV1().Secrets("default").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if stored := raw(); !bytes.HasPrefix(stored, []byte("k8s:enc:aescbc:v1:key2:")) {
		t.Errorf("after rotation and an update the secret is not under key2: %q", stored[:min(len(stored), 40)])
	}
	readBack()
}
