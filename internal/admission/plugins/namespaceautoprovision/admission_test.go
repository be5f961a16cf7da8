package namespaceautoprovision

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestAdmit(t *testing.T) {
	existing := map[string]bool{"there": true}
	var created []string
	get := func(name string) (*corev1.Namespace, error) {
		if existing[name] {
			return &corev1.Namespace{}, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	p := New(Options{Get: get, Create: func(_ context.Context, ns *corev1.Namespace) error {
		created = append(created, ns.Name)
		existing[ns.Name] = true
		return nil
	}})
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	for _, a := range []admission.Attributes{
		{Namespace: "there", Resource: cms, Operation: admission.Create},
		{Namespace: "dry", Resource: cms, Operation: admission.Create, DryRun: true},
		{Namespace: "upd", Resource: cms, Operation: admission.Update},
		{Namespace: "new", Resource: cms, Operation: admission.Create},
	} {
		if err := p.Admit(context.Background(), &a); err != nil {
			t.Fatal(err)
		}
	}
	if len(created) != 1 || created[0] != "new" {
		t.Errorf("created %v, want [new]", created)
	}

}
