package csrapproving

import (
	"context"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/controllers/certificates/certtest"
)

// TestSync pins upstream's auto-approval: a node-shaped kubelet client
// request is approved after a SubjectAccessReview for selfnodeclient
// (the node renewing its own) or nodeclient (bootstrap); anything else
// is never reviewed.
func TestSync(t *testing.T) {
	node := certtest.RequestTemplate{CommonName: "system:node:n1", Organizations: []string{"system:nodes"}}
	usages := []certificatesv1.KeyUsage{"digital signature", "client auth"}
	tests := []struct {
		name        string
		signer      string
		req         certtest.RequestTemplate
		username    string
		allowed     map[string]bool // subresource → allowed
		wantReviews []string
		wantMessage string
		wantErr     bool
	}{
		{name: "node renewing", signer: certificatesv1.KubeAPIServerClientKubeletSignerName, req: node, username: "system:node:n1",
			allowed: map[string]bool{"selfnodeclient": true}, wantReviews: []string{"selfnodeclient"},
			wantMessage: "Auto approving self kubelet client certificate after SubjectAccessReview."},
		{name: "bootstrap", signer: certificatesv1.KubeAPIServerClientKubeletSignerName, req: node, username: "system:bootstrap:abcdef",
			allowed: map[string]bool{"nodeclient": true}, wantReviews: []string{"nodeclient"},
			wantMessage: "Auto approving kubelet client certificate after SubjectAccessReview."},
		{name: "not allowed", signer: certificatesv1.KubeAPIServerClientKubeletSignerName, req: node, username: "system:node:n1",
			wantReviews: []string{"selfnodeclient", "nodeclient"}, wantErr: true},
		{name: "not a node's request", signer: certificatesv1.KubeAPIServerClientKubeletSignerName,
			req: certtest.RequestTemplate{CommonName: "alice"}, username: "alice", allowed: map[string]bool{"nodeclient": true}},
		{name: "other signer", signer: certificatesv1.KubeAPIServerClientSignerName, req: node, username: "system:node:n1",
			allowed: map[string]bool{"selfnodeclient": true, "nodeclient": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := certtest.NewRequestPEM(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "r"},
				Spec: certificatesv1.CertificateSigningRequestSpec{Request: p, SignerName: tt.signer, Usages: usages, Username: tt.username, Groups: []string{"system:nodes"}}}
			client := fake.NewClientset(csr)
			var reviews []string
			client.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
				sar := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
				ra := sar.Spec.ResourceAttributes
				if sar.Spec.User != tt.username || ra.Group != "certificates.k8s.io" || ra.Resource != "certificatesigningrequests" || ra.Verb != "create" {
					t.Errorf("review of %+v for %q", ra, sar.Spec.User)
				}
				reviews = append(reviews, ra.Subresource)
				sar.Status.Allowed = tt.allowed[ra.Subresource]
				return true, sar, nil
			})
			f := informers.NewSharedInformerFactory(client, 0)
			csrs := f.Certificates().V1().CertificateSigningRequests()
			c, err := New(client, csrs, testingclock.NewFakeClock(time.Now()), nil)
			if err != nil {
				t.Fatal(err)
			}
			_ = csrs.Informer().GetIndexer().Add(csr)
			err = c.sync(context.Background(), "r")
			if (err != nil) != tt.wantErr {
				t.Fatalf("sync: %v, want error %v", err, tt.wantErr)
			}
			if len(reviews) != len(tt.wantReviews) || (len(reviews) > 0 && reviews[0] != tt.wantReviews[0]) {
				t.Errorf("reviews %v, want %v", reviews, tt.wantReviews)
			}
			got, _ := client.CertificatesV1().CertificateSigningRequests().Get(context.Background(), "r", metav1.GetOptions{})
			var msg string
			for _, cond := range got.Status.Conditions {
				if cond.Type == certificatesv1.CertificateApproved && cond.Reason == "AutoApproved" {
					msg = cond.Message
				}
			}
			if msg != tt.wantMessage {
				t.Errorf("approval %q, want %q", msg, tt.wantMessage)
			}
		})
	}
}
