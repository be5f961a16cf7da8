package ownerreferences

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// allow allows "verb group/resource/subresource ns/name" keys.
type allow map[string]bool

func (al allow) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	key := a.Verb + " " + a.APIGroup + "/" + a.Resource + "/" + a.Subresource + " " + a.Namespace + "/" + a.Name
	if al[key] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "no rule", nil
}

func mapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), meta.RESTScopeNamespace)
	m.Add(corev1.SchemeGroupVersion.WithKind("Node"), meta.RESTScopeRoot)
	return m
}

func pod(refs ...metav1.OwnerReference) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", OwnerReferences: refs}}
}

func TestValidate(t *testing.T) {
	rs := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "1"}
	rsBlocking := rs
	rsBlocking.BlockOwnerDeletion = ptr.To(true)
	node := metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: "n1", UID: "2", BlockOwnerDeletion: ptr.To(true)}
	unknown := metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "3", BlockOwnerDeletion: ptr.To(true)}
	const deletePod = "delete /pods/ ns/p"
	tests := []struct {
		name        string
		allow       allow
		op          admission.Operation
		subresource string
		obj, old    *corev1.Pod
		message     string
	}{
		{"create with a reference needs nothing", allow{}, admission.Create, "", pod(rs), nil, ""},
		{"update adding a reference needs delete", allow{}, admission.Update, "", pod(rs), pod(),
			`pods "p" is forbidden: cannot set an ownerRef on a resource you can't delete: no rule, <nil>`},
		{"update with delete", allow{deletePod: true}, admission.Update, "", pod(rs), pod(), ""},
		{"unchanged references", allow{}, admission.Update, "", pod(rs), pod(rs), ""},
		{"pods/status is exempt", allow{}, admission.Update, "status", pod(rs), pod(), ""},
		{"blocking needs the owner's finalizers", allow{}, admission.Create, "", pod(rsBlocking), nil,
			`pods "p" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no rule, <nil>`},
		{"blocking with the owner's finalizers", allow{"update apps/replicasets/finalizers ns/rs": true}, admission.Create, "", pod(rsBlocking), nil, ""},
		{"turning blocking on", allow{deletePod: true}, admission.Update, "", pod(rsBlocking), pod(rs),
			`pods "p" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no rule, <nil>`},
		{"already blocking", allow{deletePod: true}, admission.Update, "", pod(rsBlocking, rs), pod(rsBlocking), ""},
		{"cluster-scoped owner checked without namespace", allow{"update /nodes/finalizers /n1": true}, admission.Create, "", pod(node), nil, ""},
		{"unknown owner kind", allow{}, admission.Create, "", pod(unknown), nil,
			`pods "p" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.allow, mapper())
			if err != nil {
				t.Fatal(err)
			}
			a := &admission.Attributes{Name: "p", Namespace: "ns", Operation: tt.op, Subresource: tt.subresource,
				Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Object: tt.obj, UserInfo: &user.DefaultInfo{Name: "u"}}
			if tt.old != nil {
				a.OldObject = tt.old
			}
			err = p.Validate(context.Background(), a)
			if tt.message == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !apierrors.IsForbidden(err) || err.Error() != tt.message {
				t.Fatalf("got %v\nwant 403 %s", err, tt.message)
			}
		})
	}
}
