package controlplane

import (
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/admissionregistration"
	"k8s.io/client-go/informers/apiserverinternal"
	"k8s.io/client-go/informers/apps"
	"k8s.io/client-go/informers/autoscaling"
	"k8s.io/client-go/informers/batch"
	"k8s.io/client-go/informers/certificates"
	"k8s.io/client-go/informers/coordination"
	"k8s.io/client-go/informers/core"
	"k8s.io/client-go/informers/discovery"
	"k8s.io/client-go/informers/events"
	"k8s.io/client-go/informers/extensions"
	"k8s.io/client-go/informers/flowcontrol"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/informers/lifecycle"
	"k8s.io/client-go/informers/networking"
	"k8s.io/client-go/informers/node"
	"k8s.io/client-go/informers/policy"
	"k8s.io/client-go/informers/rbac"
	"k8s.io/client-go/informers/resource"
	"k8s.io/client-go/informers/scheduling"
	"k8s.io/client-go/informers/storage"
	"k8s.io/client-go/informers/storagemigration"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	informerfanout "github.com/kapi-dev/kapi/internal/controllers/fanout"
	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
)

// fanoutFactory is the shared factory whose informers hand every
// AddEventHandler to a fan-out (internal/controllers/fanout): the
// server's parts add over a hundred handlers to its informers, and
// through client-go each would hold two goroutines and a 16 KiB buffer.
//
// client-go's group accessors build typed informers over the factory they
// are called on, so each is redone here over this wrapper; the shared
// factory watches all namespaces with no list tweak, which is what they
// pass on.
type fanoutFactory struct {
	informers.SharedInformerFactory
	fanouts *informerfanout.Set
	lent    *lentInformers
	// local feeds the informers of the kinds the server serves
	// in-process; nil means all go over the loopback client.
	local *inprocess.Resources
}

var _ informers.SharedInformerFactory = fanoutFactory{}

func newFanoutFactory(f informers.SharedInformerFactory, local *inprocess.Resources) fanoutFactory {
	return fanoutFactory{SharedInformerFactory: f, fanouts: &informerfanout.Set{}, lent: &lentInformers{}, local: local}
}

// lentInformers are informers another part of the server runs from a
// factory of its own (the authorizer's RBAC, pod and persistent volume
// informers, started by its hook), handed out by the shared factory
// instead of a second list and watch of the same objects: the garbage
// collector follows every resource, and each informer is some ten
// goroutines and a copy of its objects.
type lentInformers struct {
	mu     sync.Mutex
	byType map[reflect.Type]cache.SharedIndexInformer
	byGVR  map[schema.GroupVersionResource]cache.SharedIndexInformer
}

// lend makes the factory hand out inf for obj's type and for gvr. inf
// must be an informer of all namespaces with no list tweak and no resync,
// as the shared factory's own, and be started by its owner; lend before
// anything asks the factory for that resource.
func (f fanoutFactory) lend(gvr schema.GroupVersionResource, obj runtime.Object, inf cache.SharedIndexInformer) {
	l := f.lent
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byType == nil {
		l.byType = map[reflect.Type]cache.SharedIndexInformer{}
		l.byGVR = map[schema.GroupVersionResource]cache.SharedIndexInformer{}
	}
	l.byType[reflect.TypeOf(obj)] = inf
	l.byGVR[gvr] = inf
}

func (l *lentInformers) forType(obj runtime.Object) cache.SharedIndexInformer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byType[reflect.TypeOf(obj)]
}

func (l *lentInformers) forGVR(gvr schema.GroupVersionResource) cache.SharedIndexInformer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byGVR[gvr]
}

// InformerFor is where every typed informer comes from.
func (f fanoutFactory) InformerFor(obj runtime.Object, newFunc internalinterfaces.NewInformerFunc) cache.SharedIndexInformer {
	if inf := f.lent.forType(obj); inf != nil {
		return f.fanouts.Wrap(inf)
	}
	if f.local != nil && f.local.Serves(obj) {
		newFunc = inProcessInformer[kubernetes.Interface](f.local, obj, "", nil)
	}
	return f.fanouts.Wrap(f.SharedInformerFactory.InformerFor(obj, newFunc))
}

// ForResource is the garbage collector's and the quota controller's way
// in. client-go's builds the informer in the wrapped factory itself, so a
// lent resource is answered here first.
func (f fanoutFactory) ForResource(gvr schema.GroupVersionResource) (informers.GenericInformer, error) {
	if inf := f.lent.forGVR(gvr); inf != nil {
		return lentGeneric{informer: f.fanouts.Wrap(inf), lister: cache.NewGenericLister(inf.GetIndexer(), gvr.GroupResource())}, nil
	}
	if f.local != nil {
		// client-go's builds it through the wrapped factory's InformerFor,
		// which then holds the in-process one.
		if obj, ok := f.local.NewObject(gvr); ok {
			f.InformerFor(obj, nil)
		}
	}
	g, err := f.SharedInformerFactory.ForResource(gvr)
	if err != nil {
		return nil, err
	}
	return fanoutGeneric{GenericInformer: g, informer: f.fanouts.Wrap(g.Informer())}, nil
}

type lentGeneric struct {
	informer cache.SharedIndexInformer
	lister   cache.GenericLister
}

func (g lentGeneric) Informer() cache.SharedIndexInformer { return g.informer }
func (g lentGeneric) Lister() cache.GenericLister         { return g.lister }

type fanoutGeneric struct {
	informers.GenericInformer
	informer cache.SharedIndexInformer
}

func (g fanoutGeneric) Informer() cache.SharedIndexInformer { return g.informer }

func (f fanoutFactory) Admissionregistration() admissionregistration.Interface {
	return admissionregistration.New(f, "", nil)
}
func (f fanoutFactory) Internal() apiserverinternal.Interface {
	return apiserverinternal.New(f, "", nil)
}
func (f fanoutFactory) Apps() apps.Interface                 { return apps.New(f, "", nil) }
func (f fanoutFactory) Autoscaling() autoscaling.Interface   { return autoscaling.New(f, "", nil) }
func (f fanoutFactory) Batch() batch.Interface               { return batch.New(f, "", nil) }
func (f fanoutFactory) Certificates() certificates.Interface { return certificates.New(f, "", nil) }
func (f fanoutFactory) Coordination() coordination.Interface { return coordination.New(f, "", nil) }
func (f fanoutFactory) Core() core.Interface                 { return core.New(f, "", nil) }
func (f fanoutFactory) Discovery() discovery.Interface       { return discovery.New(f, "", nil) }
func (f fanoutFactory) Events() events.Interface             { return events.New(f, "", nil) }
func (f fanoutFactory) Extensions() extensions.Interface     { return extensions.New(f, "", nil) }
func (f fanoutFactory) Flowcontrol() flowcontrol.Interface   { return flowcontrol.New(f, "", nil) }
func (f fanoutFactory) Lifecycle() lifecycle.Interface       { return lifecycle.New(f, "", nil) }
func (f fanoutFactory) Networking() networking.Interface     { return networking.New(f, "", nil) }
func (f fanoutFactory) Node() node.Interface                 { return node.New(f, "", nil) }
func (f fanoutFactory) Policy() policy.Interface             { return policy.New(f, "", nil) }
func (f fanoutFactory) Rbac() rbac.Interface                 { return rbac.New(f, "", nil) }
func (f fanoutFactory) Resource() resource.Interface         { return resource.New(f, "", nil) }
func (f fanoutFactory) Scheduling() scheduling.Interface     { return scheduling.New(f, "", nil) }
func (f fanoutFactory) Storage() storage.Interface           { return storage.New(f, "", nil) }
func (f fanoutFactory) Storagemigration() storagemigration.Interface {
	return storagemigration.New(f, "", nil)
}
