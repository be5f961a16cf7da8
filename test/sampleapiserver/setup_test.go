package sampleapiserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/leakcheck"
	"github.com/kapi-dev/kapi/internal/pki"
	"github.com/kapi-dev/kapi/test/e2e/framework"
	"github.com/kapi-dev/kapi/test/sampleapiserver"
)

// TestMain builds kapi and kubectl once for every test, as
// framework.Main does, and fails the binary when a goroutine this
// package started outlives the tests.
func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-sampleapiserver-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sampleapiserver:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bins, err := framework.BuildBinaries(dir)
	if err == nil {
		err = os.Setenv(framework.EnvKapiBin, bins.Kapi)
	}
	if err == nil {
		err = os.Setenv(framework.EnvKubectlBin, bins.Kubectl)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sampleapiserver:", err)
		return 1
	}
	return leakcheck.Main(m, "kapi/test/sampleapiserver.")
}

// timeout bounds each wait of a test: kapi and the sample server start
// in seconds, the aggregator's checks and discovery follow within one.
const timeout = 2 * time.Minute

// apiServiceName is the APIService of the sample server's group version.
const apiServiceName = "v1alpha1.wardle.example.com"

// cluster is a kapi with front-proxy flags and a sample server
// registered behind it by an Available APIService.
type cluster struct {
	kapi   *framework.Kapi
	admin  *rest.Config
	sample *sampleapiserver.Server
}

// startCluster starts kapi serve as kubeadm configures kube-apiserver
// for aggregation (a front-proxy CA, its client certificate for the
// proxy, the X-Remote-* headers), applies upstream's RBAC for a
// delegating server, starts the sample server with a kubeconfig of its
// service account, registers its APIService and waits for it to be
// Available and proxied.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	frontDir := t.TempDir()
	frontCA, err := pki.EnsureCA(frontDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := frontCA.EnsureClientCert(frontDir, "front-proxy-client", "front-proxy-client", nil); err != nil {
		t.Fatal(err)
	}
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"), framework.WithArgs(
		"--requestheader-client-ca-file", filepath.Join(frontDir, pki.CACertFile),
		"--requestheader-allowed-names", "front-proxy-client",
		"--requestheader-username-headers", "X-Remote-User",
		"--requestheader-uid-headers", "X-Remote-Uid",
		"--requestheader-group-headers", "X-Remote-Group",
		"--requestheader-extra-headers-prefix", "X-Remote-Extra-",
		"--proxy-client-cert-file", filepath.Join(frontDir, "front-proxy-client.crt"),
		"--proxy-client-key-file", filepath.Join(frontDir, "front-proxy-client.key"),
	))
	c := &cluster{kapi: k, admin: k.RESTConfig()}
	if out, err := k.Kubectl(t, "apply", "-f", filepath.Join("testdata", "wardle.yaml")); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	token := serviceAccountToken(t, ctx, kubernetes.NewForConfigOrDie(c.admin), "wardle", "apiserver")
	waitDelegationRights(t, ctx, kubernetes.NewForConfigOrDie(tokenConfig(c.admin, token)))

	c.sample, err = sampleapiserver.Start(ctx, sampleapiserver.Config{
		Kubeconfig: writeKubeconfig(t, c.admin, token),
		CertDir:    t.TempDir(),
		DNSNames:   []string{"api.wardle.svc"},
		// Short, so that a grant is seen soon after a denial.
		AuthorizationCacheTTL: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.sample.Stop(); err != nil {
			t.Errorf("sample server stopped with: %v", err)
		}
	})
	registerAPIService(t, ctx, c)
	return c
}

// waitDelegationRights waits until the sample server's service account,
// whose client is sa, may do what a delegating server does at its start,
// and kapi has published the front-proxy settings: the server reads
// them once as it starts and refuses to start on a 403 or without a
// request-header CA, as it does against kube-apiserver. kapi's RBAC
// follows its informers, so wardle.yaml's bindings apply a moment after
// kubectl returns.
func waitDelegationRights(t *testing.T, ctx context.Context, sa kubernetes.Interface) {
	t.Helper()
	eventually(t, ctx, "the front-proxy settings in kube-system/extension-apiserver-authentication, readable by wardle/apiserver", func(ctx context.Context) (bool, error) {
		cm, err := sa.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
		if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return cm.Data["requestheader-client-ca-file"] != "" && cm.Data["client-ca-file"] != "", nil
	})
	for _, attrs := range []authorizationv1.ResourceAttributes{
		{Verb: "create", Group: "authentication.k8s.io", Resource: "tokenreviews"},
		{Verb: "create", Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
		{Verb: "watch", Resource: "namespaces"},
		{Verb: "watch", Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"},
	} {
		eventually(t, ctx, "wardle/apiserver may "+attrs.Verb+" "+attrs.Resource, func(ctx context.Context) (bool, error) {
			review, err := sa.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs},
			}, metav1.CreateOptions{})
			return err == nil && review.Status.Allowed, err
		})
	}
}

// registerAPIService registers the sample server by an APIService of
// its Service, with its CA bundle and port, and waits until the
// APIService is Available and kapi proxies to it.
func registerAPIService(t *testing.T, ctx context.Context, c *cluster) {
	t.Helper()
	reg := apiregistrationclient.NewForConfigOrDie(c.admin)
	_, err := reg.ApiregistrationV1().APIServices().Create(ctx, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: apiServiceName},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: sampleapiserver.GroupName, Version: "v1alpha1",
			Service:              &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: ptr.To(int32(c.sample.Port()))},
			CABundle:             c.sample.CABundle(),
			GroupPriorityMinimum: 1000, VersionPriority: 15,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var last *apiregistrationv1.APIServiceCondition
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		got, err := reg.ApiregistrationV1().APIServices().Get(ctx, apiServiceName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = v1helper.GetAPIServiceConditionByType(got, apiregistrationv1.Available)
		return last != nil && last.Status == apiregistrationv1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatalf("APIService %s not Available: %v; last condition %+v", apiServiceName, err, last)
	}
	// kapi's proxy learns of the condition from its informer, a moment
	// after a client can read it; until then it answers 503.
	disco := discovery.NewDiscoveryClientForConfigOrDie(c.admin)
	eventually(t, ctx, "kapi's proxy to "+apiServiceName, func(context.Context) (bool, error) {
		_, err := disco.ServerResourcesForGroupVersion(sampleapiserver.SchemeGroupVersion.String())
		if apierrors.IsServiceUnavailable(err) {
			return false, nil
		}
		return err == nil, err
	})
}

// serviceAccountToken is a TokenRequest token of namespace/name, for an
// hour.
func serviceAccountToken(t *testing.T, ctx context.Context, cs kubernetes.Interface, namespace, name string) string {
	t.Helper()
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token of %s/%s: %v", namespace, name, err)
	}
	return tr.Status.Token
}

// writeKubeconfig writes a kubeconfig reaching kapi as admin does (its
// URL and CA) with token as the credential, as an in-cluster server's
// would be.
func writeKubeconfig(t *testing.T, admin *rest.Config, token string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kapi"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData}
	cfg.AuthInfos["wardle"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["wardle"] = &clientcmdapi.Context{Cluster: "kapi", AuthInfo: "wardle"}
	cfg.CurrentContext = "wardle"
	path := filepath.Join(t.TempDir(), "wardle.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// tokenConfig is a config reaching kapi with a bearer token only.
func tokenConfig(admin *rest.Config, token string) *rest.Config {
	c := rest.AnonymousClientConfig(admin)
	c.BearerToken = token
	return c
}

// directConfig is a config reaching the sample server itself, not
// through kapi, with a bearer token.
func directConfig(s *sampleapiserver.Server, token string) *rest.Config {
	return &rest.Config{
		Host:            s.URL(),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.CABundle()},
		QPS:             -1,
	}
}

// whoAmI is kapi's SelfSubjectReview for the credentials of cfg: the
// identity a server that delegates to kapi must see.
func whoAmI(t *testing.T, ctx context.Context, cfg *rest.Config) authenticationv1.UserInfo {
	t.Helper()
	ssr, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectReview: %v", err)
	}
	return ssr.Status.UserInfo
}
