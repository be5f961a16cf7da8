package controlplane

import (
	"context"
	"net"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/apis/install"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// benchChain builds the default admission chain over memory storage and
// informers of an empty fake clientset (no webhooks, no policies).
func benchChain(b *testing.B, disable ...string) admission.Chain {
	b.Helper()
	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		b.Fatal(err)
	}
	backend := memory.NewWithOptions(memory.Options{})
	b.Cleanup(func() { _ = backend.Close() })
	getter := &restOptionsGetter{backend: backend, scheme: scheme, codecs: serializer.NewCodecFactory(scheme)}
	c := &Config{BindAddress: net.ParseIP("127.0.0.1"), DataDir: b.TempDir()}
	c.defaultServices()
	// The certificate plugins need the server's authorizer, which this
	// chain is built without; they only look at CSRs and trust bundles.
	c.Security.DisableAdmissionPlugins = append([]string{"CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest"}, disable...)
	storage, err := newCoreStorage(c, scheme, getter, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	if _, err := storage.namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	client := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}})
	si := &sharedInformers{client: client, factory: newFanoutFactory(informers.NewSharedInformerFactory(client, 0), nil)}
	chain, err := admissionChain(&admissionDeps{config: c, storage: storage, informers: si, scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	si.factory.Start(ctx.Done())
	si.factory.WaitForCacheSync(ctx.Done())
	// Cleanups run last-first: stop the informers before waiting for them.
	b.Cleanup(func() { cancel(); si.factory.Shutdown() })
	return chain
}

// BenchmarkAdmissionChainCreate is what the default chain adds to the
// create of a ConfigMap: every mutating then every validating plugin,
// with no webhook or policy configured.
func BenchmarkAdmissionChainCreate(b *testing.B) {
	b.Run("default", func(b *testing.B) { benchmarkChain(b, benchChain(b)) })
	// NamespaceLifecycle reads the namespace from storage on every
	// request; this shows what the rest of the chain costs.
	b.Run("without-NamespaceLifecycle", func(b *testing.B) { benchmarkChain(b, benchChain(b, "NamespaceLifecycle")) })
}

func benchmarkChain(b *testing.B, chain admission.Chain) {
	ctx := context.Background()
	u := &user.DefaultInfo{Name: "admin", Groups: []string{"system:masters"}}
	b.ReportAllocs()
	for b.Loop() {
		a := &admission.Attributes{
			Name: "cm", Namespace: "bench", Operation: admission.Create,
			Resource: corev1.SchemeGroupVersion.WithResource("configmaps"), Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
			Object:   &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "bench"}},
			UserInfo: u, Options: &metav1.CreateOptions{},
		}
		if err := chain.Admit(ctx, a); err != nil {
			b.Fatal(err)
		}
		if err := chain.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}
