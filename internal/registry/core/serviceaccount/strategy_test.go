package serviceaccount

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

func TestCleanSecretReferences(t *testing.T) {
	s := NewStrategy(runtime.NewScheme())
	for _, prepare := range []func(*corev1.ServiceAccount){
		func(sa *corev1.ServiceAccount) { s.PrepareForCreate(context.Background(), sa) },
		func(sa *corev1.ServiceAccount) {
			s.PrepareForUpdate(context.Background(), sa, &corev1.ServiceAccount{})
		},
	} {
		sa := &corev1.ServiceAccount{Secrets: []corev1.ObjectReference{{Name: "tok", Namespace: "elsewhere", Kind: "Secret", UID: "u"}}}
		prepare(sa)
		if diff := cmp.Diff([]corev1.ObjectReference{{Name: "tok"}}, sa.Secrets); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

func TestWarnings(t *testing.T) {
	s := NewStrategy(runtime.NewScheme())
	sa := &corev1.ServiceAccount{}
	if w := s.WarningsOnCreate(context.Background(), sa); w != nil {
		t.Errorf("warnings = %v, want none", w)
	}
	sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
	want := []string{"metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets"}
	if diff := cmp.Diff(want, s.WarningsOnUpdate(context.Background(), sa, &corev1.ServiceAccount{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	r, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewREST: %v", err)
	}
	if r.ShortNames()[0] != "sa" || r.GetSingularName() != "serviceaccount" {
		t.Errorf("short=%v singular=%q", r.ShortNames(), r.GetSingularName())
	}
	ctx := registrytest.NamespaceContext("ns")
	obj, err := r.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "ns"}}, nil, nil)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if obj.(*corev1.ServiceAccount).UID == "" {
		t.Error("created account has no uid")
	}
}
