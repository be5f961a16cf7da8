package controlplane

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/auth/authenticator/bootstrap"
	"github.com/kapi-dev/kapi/internal/controllers/bootstrapsigner"
	informerfanout "github.com/kapi-dev/kapi/internal/controllers/fanout"
	"github.com/kapi-dev/kapi/internal/controllers/tokencleaner"
)

// bootstrapTokens is one informer of the bootstrap token Secrets in
// kube-system (a type field selector: the server's other Secrets are
// never listed for them), shared by the bootstrap signer and the token
// cleaner, built by whichever starts first and stopped with the server.
type bootstrapTokens struct {
	once     sync.Once
	informer coreinformers.SecretInformer
	err      error
}

func (b *bootstrapTokens) get(ctx context.Context, cc *controllerContext) (coreinformers.SecretInformer, error) {
	b.once.Do(func() {
		client, err := cc.client("bootstrap-token-informer")
		if err != nil {
			b.err = err
			return
		}
		tweak := func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("type", string(corev1.SecretTypeBootstrapToken)).String()
		}
		f := informers.NewSharedInformerFactoryWithOptions(client, 0,
			informers.WithNamespace(bootstrap.Namespace), informers.WithTweakListOptions(tweak))
		preferInProcessTyped(f, cc.informers.factory.local, bootstrap.Namespace, tweak, &corev1.Secret{})
		// Both controllers add a handler: they share one registration.
		secrets := f.Core().V1().Secrets()
		b.informer = fanoutSecrets{SecretInformer: secrets, informer: informerfanout.New(secrets.Informer())}
		go b.informer.Informer().RunWithContext(cc.informerContext(ctx))
	})
	if b.err == nil && b.informer == nil {
		return nil, fmt.Errorf("the bootstrap token informer could not be built")
	}
	return b.informer, b.err
}

// fanoutSecrets is a Secret informer whose handlers share one
// registration (internal/controllers/fanout).
type fanoutSecrets struct {
	coreinformers.SecretInformer
	informer *informerfanout.Informer
}

func (s fanoutSecrets) Informer() cache.SharedIndexInformer { return s.informer }

func startBootstrapSigner(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("bootstrap-signer")
	if err != nil {
		return err
	}
	secrets, err := cc.bootstrapTokens.get(ctx, cc)
	if err != nil {
		return err
	}
	c, err := bootstrapsigner.New(client, cc.informers.factory.Core().V1().ConfigMaps(), secrets, cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx)
	return nil
}

func startTokenCleaner(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("token-cleaner")
	if err != nil {
		return err
	}
	secrets, err := cc.bootstrapTokens.get(ctx, cc)
	if err != nil {
		return err
	}
	c, err := tokencleaner.New(client, secrets, cc.clock, cc.logger)
	if err != nil {
		return err
	}
	go c.Run(ctx)
	return nil
}
