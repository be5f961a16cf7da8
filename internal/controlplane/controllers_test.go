package controlplane

import (
	"context"
	"crypto/x509"
	"fmt"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/internal/controllers/apiserverinfo"
	"github.com/kapi-dev/kapi/internal/controllers/certificates/certtest"
	"github.com/kapi-dev/kapi/internal/controllers/rootcapublisher"
	"github.com/kapi-dev/kapi/internal/pki"
)

// TestControllersThroughTheServer runs the in-process controllers behind
// a real server: a new namespace gets its default service account (a
// token can be requested for it) and kube-root-ca.crt holding the CA
// clients trust; an approved kube-apiserver-client request gets a
// certificate that CA verifies; kube-system holds the ConfigMaps
// kube-apiserver writes itself.
func TestControllersThroughTheServer(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	caPEM := s.restCfg.TLSClientConfig.CAData
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "default service account", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("x").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	})
	tr, err := cs.CoreV1().ServiceAccounts("x").CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil || tr.Status.Token == "" {
		t.Fatalf("token for default: %v", err)
	}
	poll(t, "kube-root-ca.crt", func(ctx context.Context) (bool, error) {
		cm, err := cs.CoreV1().ConfigMaps("x").Get(ctx, rootcapublisher.ConfigMapName, metav1.GetOptions{})
		return err == nil && cm.Data[rootcapublisher.DataKey] == string(caPEM), err
	})
	// An edit or a deletion of kube-root-ca.crt is undone.
	rootCA, err := cs.CoreV1().ConfigMaps("x").Get(ctx, rootcapublisher.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rootCA.Data[rootcapublisher.DataKey] = "edited"
	if _, err := cs.CoreV1().ConfigMaps("x").Update(ctx, rootCA, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "kube-root-ca.crt put back after an edit", func(ctx context.Context) (bool, error) {
		cm, err := cs.CoreV1().ConfigMaps("x").Get(ctx, rootcapublisher.ConfigMapName, metav1.GetOptions{})
		return err == nil && cm.Data[rootcapublisher.DataKey] == string(caPEM), err
	})
	if err := cs.CoreV1().ConfigMaps("x").Delete(ctx, rootcapublisher.ConfigMapName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "kube-root-ca.crt published again after a deletion", func(ctx context.Context) (bool, error) {
		cm, err := cs.CoreV1().ConfigMaps("x").Get(ctx, rootcapublisher.ConfigMapName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && cm.UID != rootCA.UID && cm.Data[rootcapublisher.DataKey] == string(caPEM), err
	})

	req, err := certtest.NewRequestPEM(certtest.RequestTemplate{CommonName: "alice", Organizations: []string{"devs"}})
	if err != nil {
		t.Fatal(err)
	}
	csr, err := cs.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "alice"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "KubectlApprove", Message: "approved in a test"})
	if _, err := cs.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, "alice", csr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var issued []byte
	poll(t, "certificate issued", func(ctx context.Context) (bool, error) {
		got, err := cs.CertificatesV1().CertificateSigningRequests().Get(ctx, "alice", metav1.GetOptions{})
		if err == nil {
			issued = got.Status.Certificate
		}
		return len(issued) > 0, err
	})
	certs, err := pki.ParseCertsPEM(issued)
	if err != nil {
		t.Fatal(err)
	}
	roots, err := pki.CertPoolFromPEM(caPEM)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("issued certificate does not verify against the signing CA: %v", err)
	}
	if certs[0].Subject.CommonName != "alice" {
		t.Errorf("subject %v, want CN alice", certs[0].Subject)
	}

	for _, name := range []string{apiserverinfo.AuthenticationConfigMap, apiserverinfo.LegacyTokenTrackingConfigMap} {
		poll(t, "kube-system/"+name, func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
			return err == nil, err
		})
	}
	// Its keeper watches it (in-process, by name) and writes it back.
	old, err := cs.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, apiserverinfo.AuthenticationConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(metav1.NamespaceSystem).Delete(ctx, old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "kube-system/"+old.Name+" written back", func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, old.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && got.UID != old.UID, err
	})
}

// TestEventRecorders: controllers record core/v1 Events from their source
// component as kube-controller-manager's do, so two notes about one
// object (two Pods a ReplicaSet created) stay two Events and a repeated
// one is counted; the scheduler's recorder writes events.k8s.io/v1 Events
// as its reporting controller.
func TestEventRecorders(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &eventRecorders{}
	if err := rec.init(ctx, s.restCfg); err != nil {
		t.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "bench", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctl := rec.recorder("replicaset-controller")
	for _, pod := range []string{"web-a", "web-b", "web-b"} {
		ctl.Eventf(ns, nil, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created pod: %s", pod)
	}
	rec.seriesRecorder("default-scheduler").Eventf(ns, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", "a note %d", 1)
	poll(t, "events recorded", func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=bench"})
		if err != nil {
			return false, err
		}
		counts := map[string]int32{}
		scheduler := false
		for _, e := range list.Items {
			switch {
			case e.Reason == "SuccessfulCreate" && e.Source.Component == "replicaset-controller":
				counts[e.Message] = e.Count
			case e.Reason == "FailedScheduling" && e.ReportingController == "default-scheduler" && e.Message == "a note 1":
				scheduler = true
			}
		}
		if counts["Created pod: web-b"] == 1 {
			return false, nil // the repeat is still on its way
		}
		if len(counts) > 2 || counts["Created pod: web-b"] > 2 {
			return false, fmt.Errorf("SuccessfulCreate events by message and count %v, want web-a once and web-b twice", counts)
		}
		return scheduler && counts["Created pod: web-a"] == 1 && counts["Created pod: web-b"] == 2, nil
	})
}
