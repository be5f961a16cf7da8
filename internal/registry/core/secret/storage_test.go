package secret

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	r, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewREST: %v", err)
	}
	if r.GetSingularName() != "secret" {
		t.Errorf("singular = %q", r.GetSingularName())
	}
	ctx := registrytest.NamespaceContext("ns")
	created, err := r.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, StringData: map[string]string{"k": "v"}}, nil, nil)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if s := created.(*corev1.Secret); string(s.Data["k"]) != "v" || s.StringData != nil || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("created = %+v", s)
	}
	tls := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"}, Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil, "tls.key": nil}}
	if _, err := r.Create(ctx, tls, nil, nil); err != nil {
		t.Fatalf("create tls: %v", err)
	}
	list, err := r.List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("type", "kubernetes.io/tls")})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if items := list.(*corev1.SecretList).Items; len(items) != 1 || items[0].Name != "t" {
		t.Errorf("type=kubernetes.io/tls selected %v", items)
	}
}
