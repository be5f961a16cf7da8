package validation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestValidateSecret(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "s", Namespace: "ns"}
	secret := func(typ corev1.SecretType, data map[string][]byte) corev1.Secret {
		return corev1.Secret{ObjectMeta: meta, Type: typ, Data: data}
	}
	tests := []struct {
		name   string
		secret corev1.Secret
		want   []string
	}{
		{"opaque", secret(corev1.SecretTypeOpaque, map[string][]byte{"a": nil}), nil},
		{"custom type", secret("example.com/thing", nil), nil},
		{"bad key", secret(corev1.SecretTypeOpaque, map[string][]byte{"..x": nil}),
			[]string{"data[..x]: Invalid value: must not start with '..'"}},
		{"too large", secret(corev1.SecretTypeOpaque, map[string][]byte{"a": []byte(strings.Repeat("x", MaxSecretSize+1))}),
			[]string{"data: Too long: may not be more than 1048576 bytes"}},
		{"sa token without account", secret(corev1.SecretTypeServiceAccountToken, nil),
			[]string{"metadata.annotations[kubernetes.io/service-account.name]: Required value: "}},
		{"sa token", corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}}, Type: corev1.SecretTypeServiceAccountToken}, nil},
		{"dockercfg missing", secret(corev1.SecretTypeDockercfg, nil), []string{"data[.dockercfg]: Required value: "}},
		{"dockercfg bad json", secret(corev1.SecretTypeDockercfg, map[string][]byte{".dockercfg": []byte("{")}),
			[]string{"data[.dockercfg]: Invalid value: unexpected end of JSON input"}},
		{"dockerconfigjson missing", secret(corev1.SecretTypeDockerConfigJson, nil), []string{"data[.dockerconfigjson]: Required value: "}},
		{"dockerconfigjson not an object", secret(corev1.SecretTypeDockerConfigJson, map[string][]byte{".dockerconfigjson": []byte("[]")}),
			[]string{"data[.dockerconfigjson]: Invalid value: json: cannot unmarshal array into Go value of type map[string]interface {}"}},
		{"dockerconfigjson", secret(corev1.SecretTypeDockerConfigJson, map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)}), nil},
		{"basic auth empty", secret(corev1.SecretTypeBasicAuth, nil),
			[]string{"data[username]: Required value: ", "data[password]: Required value: "}},
		{"basic auth password only", secret(corev1.SecretTypeBasicAuth, map[string][]byte{"password": nil}), nil},
		{"ssh auth empty key", secret(corev1.SecretTypeSSHAuth, map[string][]byte{"ssh-privatekey": nil}),
			[]string{"data[ssh-privatekey]: Required value: "}},
		{"tls missing", secret(corev1.SecretTypeTLS, map[string][]byte{"tls.crt": nil}),
			[]string{"data[tls.key]: Required value: "}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateSecret(&tt.secret), tt.want)
	}
}

// TestValidateSecretRedactsContent makes sure invalid JSON is not echoed.
func TestValidateSecretRedactsContent(t *testing.T) {
	s := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Type: corev1.SecretTypeDockercfg, Data: map[string][]byte{".dockercfg": []byte("hunter2")}}
	errs := ValidateSecret(&s)
	if len(errs) != 1 || errs[0].BadValue != "<secret contents redacted>" {
		t.Fatalf("errors = %v, want one with a redacted value", errs)
	}
}

func TestValidateSecretUpdate(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: "1"}
	immutable := corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque, Immutable: ptr.To(true), Data: map[string][]byte{"a": []byte("1")}}
	tests := []struct {
		name     string
		old, new corev1.Secret
		want     []string
	}{
		{"data change", corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque}, corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": nil}}, nil},
		{"type change", corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque}, corev1.Secret{ObjectMeta: meta, Type: "example.com/x"},
			[]string{"type: Invalid value: field is immutable"}},
		{"immutable unchanged", immutable, immutable, nil},
		{"immutable changed", immutable, func() corev1.Secret {
			s := *immutable.DeepCopy()
			s.Immutable = ptr.To(false)
			s.Data["a"] = []byte("2")
			return s
		}(), []string{
			"immutable: Forbidden: field is immutable when `immutable` is set",
			"data: Forbidden: field is immutable when `immutable` is set",
		}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateSecretUpdate(&tt.new, &tt.old), tt.want)
	}
}
