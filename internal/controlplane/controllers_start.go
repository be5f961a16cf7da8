package controlplane

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/controllers/csrapproving"
	"github.com/kapi-dev/kapi/internal/controllers/csrcleaner"
	"github.com/kapi-dev/kapi/internal/controllers/csrsigning"
	"github.com/kapi-dev/kapi/internal/controllers/legacytokencleaner"
	"github.com/kapi-dev/kapi/internal/controllers/rootcapublisher"
	"github.com/kapi-dev/kapi/internal/controllers/serviceaccount"
	"github.com/kapi-dev/kapi/internal/controllers/serviceaccounttoken"
	"github.com/kapi-dev/kapi/internal/pki"
	sa "github.com/kapi-dev/kapi/internal/serviceaccount"
)

// Workers per controller, kube-controller-manager's defaults
// (--concurrent-serviceaccount-token-syncs and friends).
const (
	serviceAccountWorkers = 1
	tokenWorkers          = 5
	rootCAWorkers         = 1
	csrWorkers            = 5
)

func startServiceAccountController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("service-account-controller")
	if err != nil {
		return err
	}
	core := cc.informers.factory.Core().V1()
	c, err := serviceaccount.New(client, core.ServiceAccounts(), core.Namespaces(), []string{serviceaccount.DefaultName}, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, serviceAccountWorkers)
	return nil
}

func startRootCAPublisher(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("root-ca-cert-publisher")
	if err != nil {
		return err
	}
	core := cc.informers.factory.Core().V1()
	c, err := rootcapublisher.New(client, core.ConfigMaps(), core.Namespaces(), cc.rootCA, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, rootCAWorkers)
	return nil
}

// tokenSecrets is one informer of service-account token Secrets (a type
// field selector, as upstream's tokens controller watches), shared by
// the token controller and the legacy token cleaner, built by whichever
// starts first and stopped with the server.
type tokenSecrets struct {
	once     sync.Once
	informer cache.SharedIndexInformer
}

func (t *tokenSecrets) get(ctx context.Context, cc *controllerContext) (cache.SharedIndexInformer, error) {
	var err error
	t.once.Do(func() {
		client, cerr := cc.client("tokens-controller")
		if cerr != nil {
			err = cerr
			return
		}
		tweak := func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("type", string(corev1.SecretTypeServiceAccountToken)).String()
		}
		f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(tweak))
		preferInProcessTyped(f, cc.informers.factory.local, "", tweak, &corev1.Secret{})
		t.informer = f.Core().V1().Secrets().Informer()
		go t.informer.RunWithContext(cc.informerContext(ctx))
	})
	if err == nil && t.informer == nil {
		err = fmt.Errorf("the token secrets informer could not be built")
	}
	return t.informer, err
}

func startServiceAccountTokenController(ctx context.Context, cc *controllerContext) error {
	c := cc.config
	key, err := sa.LoadOrGenerateSigningKey(c.ServiceAccountSigningKeyFile, filepath.Join(c.DataDir, "pki", "sa.key"))
	if err != nil {
		return fmt.Errorf("--service-account-signing-key-file: %w", err)
	}
	issuer, err := sa.NewIssuer(c.ServiceAccountIssuers[0], key)
	if err != nil {
		return err
	}
	client, err := cc.client("tokens-controller")
	if err != nil {
		return err
	}
	secrets, err := cc.tokenSecrets.get(ctx, cc)
	if err != nil {
		return err
	}
	generate := func(namespace, name, uid, secret string) (string, error) {
		return issuer.IssueLegacy(sa.NewLegacyClaims(namespace, name, uid, secret))
	}
	ctrl, err := serviceaccounttoken.New(client, cc.informers.factory.Core().V1().ServiceAccounts(), secrets, generate, cc.rootCA, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go ctrl.Run(ctx, tokenWorkers)
	return nil
}

func startLegacyTokenCleaner(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("legacy-service-account-token-cleaner")
	if err != nil {
		return err
	}
	secrets, err := cc.tokenSecrets.get(ctx, cc)
	if err != nil {
		return err
	}
	core := cc.informers.factory.Core().V1()
	c, err := legacytokencleaner.New(client, core.ServiceAccounts(), secrets, core.Pods(), cc.clock, legacytokencleaner.DefaultCleanUpPeriod, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx)
	return nil
}

func startCSRApprovingController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("certificate-controller")
	if err != nil {
		return err
	}
	c, err := csrapproving.New(client, cc.informers.factory.Certificates().V1().CertificateSigningRequests(), cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, csrWorkers)
	return nil
}

// signingFiles are --cluster-signing-cert-file/-key-file, or kapi's CA.
func signingFiles(c *Config) (certFile, keyFile string) {
	if c.ClusterSigningCertFile != "" {
		return c.ClusterSigningCertFile, c.ClusterSigningKeyFile
	}
	return filepath.Join(c.CertDir, pki.CACertFile), filepath.Join(c.CertDir, pki.CAKeyFile)
}

func startCSRSigningController(ctx context.Context, cc *controllerContext) error {
	certFile, keyFile := signingFiles(cc.config)
	ca, err := csrsigning.LoadCA(certFile, keyFile, cc.config.ClusterSigningDuration)
	if err != nil {
		return fmt.Errorf("--cluster-signing-cert-file/--cluster-signing-key-file: %w", err)
	}
	client, err := cc.client("certificate-controller")
	if err != nil {
		return err
	}
	c, err := csrsigning.New(client, cc.informers.factory.Certificates().V1().CertificateSigningRequests(), ca, cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, csrWorkers)
	return nil
}

func startCSRCleanerController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("certificate-controller")
	if err != nil {
		return err
	}
	c := csrcleaner.New(client, cc.informers.factory.Certificates().V1().CertificateSigningRequests(), cc.clock, cc.logger)
	cc.startInformers(ctx)
	go c.Run(ctx)
	return nil
}
