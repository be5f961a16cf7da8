package ctbattest

import (
	"context"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

type allow map[string]bool

func (a allow) Authorize(_ context.Context, at authorizer.Attributes) (authorizer.Decision, string, error) {
	if at.Resource == "signers" && a[at.Verb+" "+at.Name] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func bundle(signer, pem string, owners ...string) *certificatesv1.ClusterTrustBundle {
	b := &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "example.com:foo:b"},
		Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: signer, TrustBundle: pem}}
	for _, o := range owners {
		b.OwnerReferences = append(b.OwnerReferences, metav1.OwnerReference{Name: o})
	}
	return b
}

func TestValidate(t *testing.T) {
	const denied = `clustertrustbundles.certificates.k8s.io "example.com:foo:b" is forbidden: user not permitted to attest for signerName "example.com/foo"`
	tests := []struct {
		name     string
		allow    allow
		op       admission.Operation
		obj, old *certificatesv1.ClusterTrustBundle
		message  string
	}{
		{"attester creates", allow{"attest example.com/foo": true}, admission.Create, bundle("example.com/foo", "a"), nil, ""},
		{"domain wildcard", allow{"attest example.com/*": true}, admission.Create, bundle("example.com/foo", "a"), nil, ""},
		{"non-attester creates", allow{}, admission.Create, bundle("example.com/foo", "a"), nil, denied},
		{"no signer needs nothing", allow{}, admission.Create, bundle("", "a"), nil, ""},
		{"non-attester changes the bundle", allow{}, admission.Update, bundle("example.com/foo", "b"), bundle("example.com/foo", "a"), denied},
		{"owner references only", allow{}, admission.Update, bundle("example.com/foo", "a", "owner"), bundle("example.com/foo", "a"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			a := &admission.Attributes{Name: tt.obj.Name, Operation: tt.op,
				Resource: certificatesv1.SchemeGroupVersion.WithResource("clustertrustbundles"),
				Object:   tt.obj, UserInfo: &user.DefaultInfo{Name: "bob"}}
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
				t.Fatalf("got %v, want %s", err, tt.message)
			}
		})
	}
}
