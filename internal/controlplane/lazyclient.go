package controlplane

import (
	"fmt"
	"net/http"
	"sync"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	admissionregistrationv1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1beta1"
	internalv1alpha1 "k8s.io/client-go/kubernetes/typed/apiserverinternal/v1alpha1"
	appsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	appsv1beta1 "k8s.io/client-go/kubernetes/typed/apps/v1beta1"
	appsv1beta2 "k8s.io/client-go/kubernetes/typed/apps/v1beta2"
	authenticationv1 "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authenticationv1alpha1 "k8s.io/client-go/kubernetes/typed/authentication/v1alpha1"
	authenticationv1beta1 "k8s.io/client-go/kubernetes/typed/authentication/v1beta1"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	authorizationv1beta1 "k8s.io/client-go/kubernetes/typed/authorization/v1beta1"
	autoscalingv1 "k8s.io/client-go/kubernetes/typed/autoscaling/v1"
	autoscalingv2 "k8s.io/client-go/kubernetes/typed/autoscaling/v2"
	batchv1 "k8s.io/client-go/kubernetes/typed/batch/v1"
	batchv1beta1 "k8s.io/client-go/kubernetes/typed/batch/v1beta1"
	certificatesv1 "k8s.io/client-go/kubernetes/typed/certificates/v1"
	certificatesv1alpha1 "k8s.io/client-go/kubernetes/typed/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/client-go/kubernetes/typed/certificates/v1beta1"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	coordinationv1alpha2 "k8s.io/client-go/kubernetes/typed/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/client-go/kubernetes/typed/coordination/v1beta1"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1 "k8s.io/client-go/kubernetes/typed/discovery/v1"
	discoveryv1beta1 "k8s.io/client-go/kubernetes/typed/discovery/v1beta1"
	eventsv1 "k8s.io/client-go/kubernetes/typed/events/v1"
	eventsv1beta1 "k8s.io/client-go/kubernetes/typed/events/v1beta1"
	extensionsv1beta1 "k8s.io/client-go/kubernetes/typed/extensions/v1beta1"
	flowcontrolv1 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	flowcontrolv1beta1 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1beta3"
	lifecyclev1alpha1 "k8s.io/client-go/kubernetes/typed/lifecycle/v1alpha1"
	networkingv1 "k8s.io/client-go/kubernetes/typed/networking/v1"
	networkingv1beta1 "k8s.io/client-go/kubernetes/typed/networking/v1beta1"
	nodev1 "k8s.io/client-go/kubernetes/typed/node/v1"
	nodev1alpha1 "k8s.io/client-go/kubernetes/typed/node/v1alpha1"
	nodev1beta1 "k8s.io/client-go/kubernetes/typed/node/v1beta1"
	policyv1 "k8s.io/client-go/kubernetes/typed/policy/v1"
	policyv1beta1 "k8s.io/client-go/kubernetes/typed/policy/v1beta1"
	rbacv1 "k8s.io/client-go/kubernetes/typed/rbac/v1"
	rbacv1alpha1 "k8s.io/client-go/kubernetes/typed/rbac/v1alpha1"
	rbacv1beta1 "k8s.io/client-go/kubernetes/typed/rbac/v1beta1"
	resourcev1 "k8s.io/client-go/kubernetes/typed/resource/v1"
	resourcev1alpha3 "k8s.io/client-go/kubernetes/typed/resource/v1alpha3"
	resourcev1beta1 "k8s.io/client-go/kubernetes/typed/resource/v1beta1"
	resourcev1beta2 "k8s.io/client-go/kubernetes/typed/resource/v1beta2"
	schedulingv1 "k8s.io/client-go/kubernetes/typed/scheduling/v1"
	schedulingv1alpha3 "k8s.io/client-go/kubernetes/typed/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/client-go/kubernetes/typed/scheduling/v1beta1"
	storagev1 "k8s.io/client-go/kubernetes/typed/storage/v1"
	storagev1alpha1 "k8s.io/client-go/kubernetes/typed/storage/v1alpha1"
	storagev1beta1 "k8s.io/client-go/kubernetes/typed/storage/v1beta1"
	storagemigrationv1 "k8s.io/client-go/kubernetes/typed/storagemigration/v1"
	storagemigrationv1beta1 "k8s.io/client-go/kubernetes/typed/storagemigration/v1beta1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// lazyClientset is a kubernetes.Interface whose typed clients are built
// the first time they are asked for. client-go's NewForConfig builds a
// REST client for each of its some fifty group versions, ~25 KB, while a
// controller uses two or three of them; kapi gives each of its thirty
// in-process controllers a clientset of its own (its user agent names it
// in audit and in managedFields), as kube-controller-manager does. The
// clients are built as client-go builds them: one HTTP client and one
// rate limiter for all, from a copy of the config.
//
// It has a method per group version of kubernetes.Interface: when
// client-go adds a group, the compile-time check below fails until it is
// added here.
type lazyClientset struct {
	config     *rest.Config
	httpClient *http.Client

	discovery                     lazy[*discovery.DiscoveryClient]
	admissionregistrationV1       lazy[*admissionregistrationv1.AdmissionregistrationV1Client]
	admissionregistrationV1alpha1 lazy[*admissionregistrationv1alpha1.AdmissionregistrationV1alpha1Client]
	admissionregistrationV1beta1  lazy[*admissionregistrationv1beta1.AdmissionregistrationV1beta1Client]
	internalV1alpha1              lazy[*internalv1alpha1.InternalV1alpha1Client]
	appsV1                        lazy[*appsv1.AppsV1Client]
	appsV1beta1                   lazy[*appsv1beta1.AppsV1beta1Client]
	appsV1beta2                   lazy[*appsv1beta2.AppsV1beta2Client]
	authenticationV1              lazy[*authenticationv1.AuthenticationV1Client]
	authenticationV1alpha1        lazy[*authenticationv1alpha1.AuthenticationV1alpha1Client]
	authenticationV1beta1         lazy[*authenticationv1beta1.AuthenticationV1beta1Client]
	authorizationV1               lazy[*authorizationv1.AuthorizationV1Client]
	authorizationV1beta1          lazy[*authorizationv1beta1.AuthorizationV1beta1Client]
	autoscalingV1                 lazy[*autoscalingv1.AutoscalingV1Client]
	autoscalingV2                 lazy[*autoscalingv2.AutoscalingV2Client]
	batchV1                       lazy[*batchv1.BatchV1Client]
	batchV1beta1                  lazy[*batchv1beta1.BatchV1beta1Client]
	certificatesV1                lazy[*certificatesv1.CertificatesV1Client]
	certificatesV1beta1           lazy[*certificatesv1beta1.CertificatesV1beta1Client]
	certificatesV1alpha1          lazy[*certificatesv1alpha1.CertificatesV1alpha1Client]
	coordinationV1alpha2          lazy[*coordinationv1alpha2.CoordinationV1alpha2Client]
	coordinationV1beta1           lazy[*coordinationv1beta1.CoordinationV1beta1Client]
	coordinationV1                lazy[*coordinationv1.CoordinationV1Client]
	coreV1                        lazy[*corev1.CoreV1Client]
	discoveryV1                   lazy[*discoveryv1.DiscoveryV1Client]
	discoveryV1beta1              lazy[*discoveryv1beta1.DiscoveryV1beta1Client]
	eventsV1                      lazy[*eventsv1.EventsV1Client]
	eventsV1beta1                 lazy[*eventsv1beta1.EventsV1beta1Client]
	extensionsV1beta1             lazy[*extensionsv1beta1.ExtensionsV1beta1Client]
	flowcontrolV1                 lazy[*flowcontrolv1.FlowcontrolV1Client]
	flowcontrolV1beta1            lazy[*flowcontrolv1beta1.FlowcontrolV1beta1Client]
	flowcontrolV1beta2            lazy[*flowcontrolv1beta2.FlowcontrolV1beta2Client]
	flowcontrolV1beta3            lazy[*flowcontrolv1beta3.FlowcontrolV1beta3Client]
	lifecycleV1alpha1             lazy[*lifecyclev1alpha1.LifecycleV1alpha1Client]
	networkingV1                  lazy[*networkingv1.NetworkingV1Client]
	networkingV1beta1             lazy[*networkingv1beta1.NetworkingV1beta1Client]
	nodeV1                        lazy[*nodev1.NodeV1Client]
	nodeV1alpha1                  lazy[*nodev1alpha1.NodeV1alpha1Client]
	nodeV1beta1                   lazy[*nodev1beta1.NodeV1beta1Client]
	policyV1                      lazy[*policyv1.PolicyV1Client]
	policyV1beta1                 lazy[*policyv1beta1.PolicyV1beta1Client]
	rbacV1                        lazy[*rbacv1.RbacV1Client]
	rbacV1beta1                   lazy[*rbacv1beta1.RbacV1beta1Client]
	rbacV1alpha1                  lazy[*rbacv1alpha1.RbacV1alpha1Client]
	resourceV1                    lazy[*resourcev1.ResourceV1Client]
	resourceV1beta2               lazy[*resourcev1beta2.ResourceV1beta2Client]
	resourceV1beta1               lazy[*resourcev1beta1.ResourceV1beta1Client]
	resourceV1alpha3              lazy[*resourcev1alpha3.ResourceV1alpha3Client]
	schedulingV1alpha3            lazy[*schedulingv1alpha3.SchedulingV1alpha3Client]
	schedulingV1beta1             lazy[*schedulingv1beta1.SchedulingV1beta1Client]
	schedulingV1                  lazy[*schedulingv1.SchedulingV1Client]
	storageV1beta1                lazy[*storagev1beta1.StorageV1beta1Client]
	storageV1                     lazy[*storagev1.StorageV1Client]
	storageV1alpha1               lazy[*storagev1alpha1.StorageV1alpha1Client]
	storagemigrationV1            lazy[*storagemigrationv1.StoragemigrationV1Client]
	storagemigrationV1beta1       lazy[*storagemigrationv1beta1.StoragemigrationV1beta1Client]
}

var _ kubernetes.Interface = (*lazyClientset)(nil)

// newLazyClientset is kubernetes.NewForConfig with the group clients
// built on first use. The config is checked here, by building the core
// client, as NewForConfig would fail on it.
func newLazyClientset(c *rest.Config) (*lazyClientset, error) {
	cfg := *c
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	httpClient, err := rest.HTTPClientFor(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, fmt.Errorf("a client config with QPS %v needs a burst above 0", cfg.QPS)
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	cs := &lazyClientset{config: &cfg, httpClient: httpClient}
	core, err := corev1.NewForConfigAndClient(&cfg, httpClient)
	if err != nil {
		return nil, err
	}
	cs.coreV1.once.Do(func() { cs.coreV1.client = core })
	return cs, nil
}

// lazy is one client, built once.
type lazy[T any] struct {
	once   sync.Once
	client T
}

// built is l's client, built with build over cs's config the first time.
func built[T any](cs *lazyClientset, l *lazy[T], build func(*rest.Config, *http.Client) (T, error)) T {
	l.once.Do(func() {
		client, err := build(cs.config, cs.httpClient)
		if err != nil {
			// The config built the core client: the group clients differ
			// from it only in their API path and group version.
			panic(fmt.Sprintf("building a client from a checked config: %v", err))
		}
		l.client = client
	})
	return l.client
}

func (cs *lazyClientset) Discovery() discovery.DiscoveryInterfaces {
	return built(cs, &cs.discovery, discovery.NewDiscoveryClientForConfigAndClient)
}

func (cs *lazyClientset) AdmissionregistrationV1() admissionregistrationv1.AdmissionregistrationV1Interface {
	return built(cs, &cs.admissionregistrationV1, admissionregistrationv1.NewForConfigAndClient)
}

func (cs *lazyClientset) AdmissionregistrationV1alpha1() admissionregistrationv1alpha1.AdmissionregistrationV1alpha1Interface {
	return built(cs, &cs.admissionregistrationV1alpha1, admissionregistrationv1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) AdmissionregistrationV1beta1() admissionregistrationv1beta1.AdmissionregistrationV1beta1Interface {
	return built(cs, &cs.admissionregistrationV1beta1, admissionregistrationv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) InternalV1alpha1() internalv1alpha1.InternalV1alpha1Interface {
	return built(cs, &cs.internalV1alpha1, internalv1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) AppsV1() appsv1.AppsV1Interface {
	return built(cs, &cs.appsV1, appsv1.NewForConfigAndClient)
}

func (cs *lazyClientset) AppsV1beta1() appsv1beta1.AppsV1beta1Interface {
	return built(cs, &cs.appsV1beta1, appsv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) AppsV1beta2() appsv1beta2.AppsV1beta2Interface {
	return built(cs, &cs.appsV1beta2, appsv1beta2.NewForConfigAndClient)
}

func (cs *lazyClientset) AuthenticationV1() authenticationv1.AuthenticationV1Interface {
	return built(cs, &cs.authenticationV1, authenticationv1.NewForConfigAndClient)
}

func (cs *lazyClientset) AuthenticationV1alpha1() authenticationv1alpha1.AuthenticationV1alpha1Interface {
	return built(cs, &cs.authenticationV1alpha1, authenticationv1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) AuthenticationV1beta1() authenticationv1beta1.AuthenticationV1beta1Interface {
	return built(cs, &cs.authenticationV1beta1, authenticationv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) AuthorizationV1() authorizationv1.AuthorizationV1Interface {
	return built(cs, &cs.authorizationV1, authorizationv1.NewForConfigAndClient)
}

func (cs *lazyClientset) AuthorizationV1beta1() authorizationv1beta1.AuthorizationV1beta1Interface {
	return built(cs, &cs.authorizationV1beta1, authorizationv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) AutoscalingV1() autoscalingv1.AutoscalingV1Interface {
	return built(cs, &cs.autoscalingV1, autoscalingv1.NewForConfigAndClient)
}

func (cs *lazyClientset) AutoscalingV2() autoscalingv2.AutoscalingV2Interface {
	return built(cs, &cs.autoscalingV2, autoscalingv2.NewForConfigAndClient)
}

func (cs *lazyClientset) BatchV1() batchv1.BatchV1Interface {
	return built(cs, &cs.batchV1, batchv1.NewForConfigAndClient)
}

func (cs *lazyClientset) BatchV1beta1() batchv1beta1.BatchV1beta1Interface {
	return built(cs, &cs.batchV1beta1, batchv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) CertificatesV1() certificatesv1.CertificatesV1Interface {
	return built(cs, &cs.certificatesV1, certificatesv1.NewForConfigAndClient)
}

func (cs *lazyClientset) CertificatesV1beta1() certificatesv1beta1.CertificatesV1beta1Interface {
	return built(cs, &cs.certificatesV1beta1, certificatesv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) CertificatesV1alpha1() certificatesv1alpha1.CertificatesV1alpha1Interface {
	return built(cs, &cs.certificatesV1alpha1, certificatesv1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) CoordinationV1alpha2() coordinationv1alpha2.CoordinationV1alpha2Interface {
	return built(cs, &cs.coordinationV1alpha2, coordinationv1alpha2.NewForConfigAndClient)
}

func (cs *lazyClientset) CoordinationV1beta1() coordinationv1beta1.CoordinationV1beta1Interface {
	return built(cs, &cs.coordinationV1beta1, coordinationv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) CoordinationV1() coordinationv1.CoordinationV1Interface {
	return built(cs, &cs.coordinationV1, coordinationv1.NewForConfigAndClient)
}

func (cs *lazyClientset) CoreV1() corev1.CoreV1Interface {
	return built(cs, &cs.coreV1, corev1.NewForConfigAndClient)
}

func (cs *lazyClientset) DiscoveryV1() discoveryv1.DiscoveryV1Interface {
	return built(cs, &cs.discoveryV1, discoveryv1.NewForConfigAndClient)
}

func (cs *lazyClientset) DiscoveryV1beta1() discoveryv1beta1.DiscoveryV1beta1Interface {
	return built(cs, &cs.discoveryV1beta1, discoveryv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) EventsV1() eventsv1.EventsV1Interface {
	return built(cs, &cs.eventsV1, eventsv1.NewForConfigAndClient)
}

func (cs *lazyClientset) EventsV1beta1() eventsv1beta1.EventsV1beta1Interface {
	return built(cs, &cs.eventsV1beta1, eventsv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) ExtensionsV1beta1() extensionsv1beta1.ExtensionsV1beta1Interface {
	return built(cs, &cs.extensionsV1beta1, extensionsv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) FlowcontrolV1() flowcontrolv1.FlowcontrolV1Interface {
	return built(cs, &cs.flowcontrolV1, flowcontrolv1.NewForConfigAndClient)
}

func (cs *lazyClientset) FlowcontrolV1beta1() flowcontrolv1beta1.FlowcontrolV1beta1Interface {
	return built(cs, &cs.flowcontrolV1beta1, flowcontrolv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) FlowcontrolV1beta2() flowcontrolv1beta2.FlowcontrolV1beta2Interface {
	return built(cs, &cs.flowcontrolV1beta2, flowcontrolv1beta2.NewForConfigAndClient)
}

func (cs *lazyClientset) FlowcontrolV1beta3() flowcontrolv1beta3.FlowcontrolV1beta3Interface {
	return built(cs, &cs.flowcontrolV1beta3, flowcontrolv1beta3.NewForConfigAndClient)
}

func (cs *lazyClientset) LifecycleV1alpha1() lifecyclev1alpha1.LifecycleV1alpha1Interface {
	return built(cs, &cs.lifecycleV1alpha1, lifecyclev1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) NetworkingV1() networkingv1.NetworkingV1Interface {
	return built(cs, &cs.networkingV1, networkingv1.NewForConfigAndClient)
}

func (cs *lazyClientset) NetworkingV1beta1() networkingv1beta1.NetworkingV1beta1Interface {
	return built(cs, &cs.networkingV1beta1, networkingv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) NodeV1() nodev1.NodeV1Interface {
	return built(cs, &cs.nodeV1, nodev1.NewForConfigAndClient)
}

func (cs *lazyClientset) NodeV1alpha1() nodev1alpha1.NodeV1alpha1Interface {
	return built(cs, &cs.nodeV1alpha1, nodev1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) NodeV1beta1() nodev1beta1.NodeV1beta1Interface {
	return built(cs, &cs.nodeV1beta1, nodev1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) PolicyV1() policyv1.PolicyV1Interface {
	return built(cs, &cs.policyV1, policyv1.NewForConfigAndClient)
}

func (cs *lazyClientset) PolicyV1beta1() policyv1beta1.PolicyV1beta1Interface {
	return built(cs, &cs.policyV1beta1, policyv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) RbacV1() rbacv1.RbacV1Interface {
	return built(cs, &cs.rbacV1, rbacv1.NewForConfigAndClient)
}

func (cs *lazyClientset) RbacV1beta1() rbacv1beta1.RbacV1beta1Interface {
	return built(cs, &cs.rbacV1beta1, rbacv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) RbacV1alpha1() rbacv1alpha1.RbacV1alpha1Interface {
	return built(cs, &cs.rbacV1alpha1, rbacv1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) ResourceV1() resourcev1.ResourceV1Interface {
	return built(cs, &cs.resourceV1, resourcev1.NewForConfigAndClient)
}

func (cs *lazyClientset) ResourceV1beta2() resourcev1beta2.ResourceV1beta2Interface {
	return built(cs, &cs.resourceV1beta2, resourcev1beta2.NewForConfigAndClient)
}

func (cs *lazyClientset) ResourceV1beta1() resourcev1beta1.ResourceV1beta1Interface {
	return built(cs, &cs.resourceV1beta1, resourcev1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) ResourceV1alpha3() resourcev1alpha3.ResourceV1alpha3Interface {
	return built(cs, &cs.resourceV1alpha3, resourcev1alpha3.NewForConfigAndClient)
}

func (cs *lazyClientset) SchedulingV1alpha3() schedulingv1alpha3.SchedulingV1alpha3Interface {
	return built(cs, &cs.schedulingV1alpha3, schedulingv1alpha3.NewForConfigAndClient)
}

func (cs *lazyClientset) SchedulingV1beta1() schedulingv1beta1.SchedulingV1beta1Interface {
	return built(cs, &cs.schedulingV1beta1, schedulingv1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) SchedulingV1() schedulingv1.SchedulingV1Interface {
	return built(cs, &cs.schedulingV1, schedulingv1.NewForConfigAndClient)
}

func (cs *lazyClientset) StorageV1beta1() storagev1beta1.StorageV1beta1Interface {
	return built(cs, &cs.storageV1beta1, storagev1beta1.NewForConfigAndClient)
}

func (cs *lazyClientset) StorageV1() storagev1.StorageV1Interface {
	return built(cs, &cs.storageV1, storagev1.NewForConfigAndClient)
}

func (cs *lazyClientset) StorageV1alpha1() storagev1alpha1.StorageV1alpha1Interface {
	return built(cs, &cs.storageV1alpha1, storagev1alpha1.NewForConfigAndClient)
}

func (cs *lazyClientset) StoragemigrationV1() storagemigrationv1.StoragemigrationV1Interface {
	return built(cs, &cs.storagemigrationV1, storagemigrationv1.NewForConfigAndClient)
}

func (cs *lazyClientset) StoragemigrationV1beta1() storagemigrationv1beta1.StoragemigrationV1beta1Interface {
	return built(cs, &cs.storagemigrationV1beta1, storagemigrationv1beta1.NewForConfigAndClient)
}
