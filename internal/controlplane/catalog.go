package controlplane

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/admissionregistration/mutatingadmissionpolicy"
	"github.com/kapi-dev/kapi/internal/registry/admissionregistration/mutatingadmissionpolicybinding"
	"github.com/kapi-dev/kapi/internal/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/kapi-dev/kapi/internal/registry/admissionregistration/validatingadmissionpolicy"
	"github.com/kapi-dev/kapi/internal/registry/admissionregistration/validatingadmissionpolicybinding"
	"github.com/kapi-dev/kapi/internal/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/kapi-dev/kapi/internal/registry/apps/controllerrevision"
	"github.com/kapi-dev/kapi/internal/registry/apps/daemonset"
	"github.com/kapi-dev/kapi/internal/registry/apps/deployment"
	"github.com/kapi-dev/kapi/internal/registry/apps/replicaset"
	"github.com/kapi-dev/kapi/internal/registry/apps/statefulset"
	"github.com/kapi-dev/kapi/internal/registry/autoscaling/horizontalpodautoscaler"
	"github.com/kapi-dev/kapi/internal/registry/batch/cronjob"
	"github.com/kapi-dev/kapi/internal/registry/batch/job"
	"github.com/kapi-dev/kapi/internal/registry/certificates/certificatesigningrequest"
	"github.com/kapi-dev/kapi/internal/registry/certificates/clustertrustbundle"
	"github.com/kapi-dev/kapi/internal/registry/certificates/podcertificaterequest"
	"github.com/kapi-dev/kapi/internal/registry/coordination/lease"
	"github.com/kapi-dev/kapi/internal/registry/core/componentstatus"
	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	"github.com/kapi-dev/kapi/internal/registry/core/endpoint"
	"github.com/kapi-dev/kapi/internal/registry/core/event"
	"github.com/kapi-dev/kapi/internal/registry/core/limitrange"
	nsregistry "github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/core/node"
	"github.com/kapi-dev/kapi/internal/registry/core/persistentvolume"
	"github.com/kapi-dev/kapi/internal/registry/core/persistentvolumeclaim"
	"github.com/kapi-dev/kapi/internal/registry/core/pod"
	"github.com/kapi-dev/kapi/internal/registry/core/podtemplate"
	"github.com/kapi-dev/kapi/internal/registry/core/replicationcontroller"
	"github.com/kapi-dev/kapi/internal/registry/core/resourcequota"
	"github.com/kapi-dev/kapi/internal/registry/core/secret"
	"github.com/kapi-dev/kapi/internal/registry/core/service"
	"github.com/kapi-dev/kapi/internal/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/internal/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/internal/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/internal/registry/discovery/endpointslice"
	eventsregistry "github.com/kapi-dev/kapi/internal/registry/events/event"
	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/flowschema"
	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/prioritylevelconfiguration"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/networking/ingress"
	"github.com/kapi-dev/kapi/internal/registry/networking/ingressclass"
	"github.com/kapi-dev/kapi/internal/registry/networking/ipaddress"
	"github.com/kapi-dev/kapi/internal/registry/networking/networkpolicy"
	"github.com/kapi-dev/kapi/internal/registry/networking/servicecidr"
	"github.com/kapi-dev/kapi/internal/registry/node/runtimeclass"
	"github.com/kapi-dev/kapi/internal/registry/policy/poddisruptionbudget"
	"github.com/kapi-dev/kapi/internal/registry/rbac/clusterrole"
	"github.com/kapi-dev/kapi/internal/registry/rbac/clusterrolebinding"
	"github.com/kapi-dev/kapi/internal/registry/rbac/role"
	"github.com/kapi-dev/kapi/internal/registry/rbac/rolebinding"
	"github.com/kapi-dev/kapi/internal/registry/resource/deviceclass"
	"github.com/kapi-dev/kapi/internal/registry/resource/devicetaintrule"
	"github.com/kapi-dev/kapi/internal/registry/resource/resourceclaim"
	"github.com/kapi-dev/kapi/internal/registry/resource/resourceclaimtemplate"
	"github.com/kapi-dev/kapi/internal/registry/resource/resourceslice"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scheduling/priorityclass"
	"github.com/kapi-dev/kapi/internal/registry/storage/csidriver"
	"github.com/kapi-dev/kapi/internal/registry/storage/csinode"
	"github.com/kapi-dev/kapi/internal/registry/storage/csistoragecapacity"
	"github.com/kapi-dev/kapi/internal/registry/storage/storageclass"
	"github.com/kapi-dev/kapi/internal/registry/storage/volumeattachment"
	"github.com/kapi-dev/kapi/internal/registry/storage/volumeattributesclass"
	"github.com/kapi-dev/kapi/internal/registry/storagemigration/storageversionmigration"
	sa "github.com/kapi-dev/kapi/internal/serviceaccount"
)

// resourceFunc builds the storage of one resource and its subresources,
// keyed "resource" and "resource/subresource".
type resourceFunc func(*runtime.Scheme, generic.RESTOptionsGetter) (map[string]rest.Storage, error)

// groupSpec is a built-in group whose resources need nothing but the
// scheme and the storage.
type groupSpec struct {
	group     string
	versions  []string
	resources []resourceFunc
}

// plainGroups lists the built-in groups without cross-resource wiring.
// A resource served in several versions has one storage in all of them.
func plainGroups() []groupSpec {
	return []groupSpec{
		{"apps", []string{"v1"}, []resourceFunc{deployment.NewStorage, replicaset.NewStorage, statefulset.NewStorage, daemonset.NewStorage, controllerrevision.NewStorage}},
		{"autoscaling", []string{"v2", "v1"}, []resourceFunc{horizontalpodautoscaler.NewStorage}},
		{"batch", []string{"v1"}, []resourceFunc{job.NewStorage, cronjob.NewStorage}},
		{"policy", []string{"v1"}, []resourceFunc{poddisruptionbudget.NewStorage}},
		{"rbac.authorization.k8s.io", []string{"v1"}, []resourceFunc{role.NewStorage, rolebinding.NewStorage, clusterrole.NewStorage, clusterrolebinding.NewStorage}},
		{"storage.k8s.io", []string{"v1"}, []resourceFunc{storageclass.NewStorage, volumeattachment.NewStorage, csidriver.NewStorage, csinode.NewStorage, csistoragecapacity.NewStorage, volumeattributesclass.NewStorage}},
		{"admissionregistration.k8s.io", []string{"v1"}, []resourceFunc{validatingwebhookconfiguration.NewStorage, mutatingwebhookconfiguration.NewStorage, validatingadmissionpolicy.NewStorage, validatingadmissionpolicybinding.NewStorage, mutatingadmissionpolicy.NewStorage, mutatingadmissionpolicybinding.NewStorage}},
		{"scheduling.k8s.io", []string{"v1"}, []resourceFunc{priorityclass.NewStorage}},
		{"coordination.k8s.io", []string{"v1"}, []resourceFunc{one("leases", lease.NewREST)}},
		{"node.k8s.io", []string{"v1"}, []resourceFunc{runtimeclass.NewStorage}},
		{"certificates.k8s.io", []string{"v1"}, []resourceFunc{certificatesigningrequest.NewStorage, clustertrustbundle.NewStorage, podcertificaterequest.NewStorage}},
		{"flowcontrol.apiserver.k8s.io", []string{"v1"}, []resourceFunc{flowschema.NewStorage, prioritylevelconfiguration.NewStorage}},
		{"resource.k8s.io", []string{"v1"}, []resourceFunc{deviceclass.NewStorage, resourceclaim.NewStorage, resourceclaimtemplate.NewStorage, resourceslice.NewStorage, devicetaintrule.NewStorage}},
		{"networking.k8s.io", []string{"v1"}, []resourceFunc{ingress.NewStorage, ingressclass.NewStorage, networkpolicy.NewStorage, ipaddress.NewStorage, servicecidr.NewStorage}},
		{"discovery.k8s.io", []string{"v1"}, []resourceFunc{endpointslice.NewStorage}},
		{"storagemigration.k8s.io", []string{"v1"}, []resourceFunc{storageversionmigration.NewStorage}},
	}
}

// catalogBuilder builds the storage of every built-in group, in the order
// their dependencies need (pods need disruption budgets, services need IP
// addresses).
type catalogBuilder struct {
	config *Config
	scheme *runtime.Scheme
	getter generic.RESTOptionsGetter
	// probes are the health checks componentstatuses reports.
	probes map[string]func(context.Context) error

	namespaces *nsregistry.REST
	finalize   *nsregistry.FinalizeREST
	// built are the groups built so far, for resources that need another's
	// storage.
	built []rest.APIGroupInfo
	// security adds the review APIs and the RBAC escalation checks; nil
	// (tests of the catalog alone) leaves them out.
	security *security
}

func (b *catalogBuilder) build() ([]rest.APIGroupInfo, error) {
	var plain []rest.APIGroupInfo
	for _, spec := range plainGroups() {
		g, err := b.plainGroup(spec)
		if err != nil {
			return nil, err
		}
		if b.security != nil {
			b.security.guardRBAC(&g)
		}
		plain = append(plain, g)
		b.built = append(b.built, g)
	}
	core, err := b.coreGroup()
	if err != nil {
		return nil, err
	}
	events, err := eventsGroup(core)
	if err != nil {
		return nil, err
	}
	if b.security != nil {
		plain = append(plain, b.security.reviewGroups()...)
	}
	// The core group first and events next to it, as kube-apiserver
	// orders discovery.
	return append([]rest.APIGroupInfo{core, events}, plain...), nil
}

// storage returns a built resource's storage, "" group for core.
func (b *catalogBuilder) storage(group, path string) rest.Storage {
	for _, g := range b.built {
		if g.Group == group {
			return g.Storage[g.Versions[0]][path]
		}
	}
	return nil
}

// coreGroup builds the legacy core group under /api/v1.
func (b *catalogBuilder) coreGroup() (rest.APIGroupInfo, error) {
	ns, nsStatus, nsFinalize, err := nsregistry.NewREST(b.scheme, b.getter)
	if err != nil {
		return rest.APIGroupInfo{}, fmt.Errorf("namespaces: %w", err)
	}
	b.namespaces, b.finalize = ns, nsFinalize
	storage := map[string]rest.Storage{
		"namespaces":          ns,
		"namespaces/status":   nsStatus,
		"namespaces/finalize": nsFinalize,
	}
	err = b.addAll(storage,
		one("configmaps", configmap.NewREST),
		one("secrets", secret.NewREST),
		one("events", event.NewREST),
		node.NewStorage,
		persistentvolume.NewStorage,
		persistentvolumeclaim.NewStorage,
		limitrange.NewStorage,
		resourcequota.NewStorage,
		replicationcontroller.NewStorage,
		podtemplate.NewStorage,
		b.pods,
		b.services,
		endpoint.NewStorage,
		func(s *runtime.Scheme, g generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
			return componentstatus.NewStorage(s, g, componentstatus.Options{Probes: b.probes})
		},
	)
	if err != nil {
		return rest.APIGroupInfo{}, err
	}
	if err := b.addAll(storage, b.serviceAccounts); err != nil {
		return rest.APIGroupInfo{}, err
	}
	return rest.APIGroupInfo{Group: "", Versions: []string{"v1"}, Storage: map[string]map[string]rest.Storage{"v1": storage}}, nil
}

// eventsGroup serves events.k8s.io/v1 over the core events storage.
func eventsGroup(core rest.APIGroupInfo) (rest.APIGroupInfo, error) {
	events, ok := core.Storage["v1"]["events"].(eventsregistry.CoreStorage)
	if !ok {
		return rest.APIGroupInfo{}, errors.New("events.k8s.io: core events storage missing")
	}
	return rest.APIGroupInfo{
		Group:    "events.k8s.io",
		Versions: []string{"v1"},
		Storage:  map[string]map[string]rest.Storage{"v1": eventsregistry.NewStorage(events)},
	}, nil
}

func (b *catalogBuilder) plainGroup(spec groupSpec) (rest.APIGroupInfo, error) {
	storage := map[string]rest.Storage{}
	if err := b.addAll(storage, spec.resources...); err != nil {
		return rest.APIGroupInfo{}, fmt.Errorf("%s: %w", spec.group, err)
	}
	g := rest.APIGroupInfo{Group: spec.group, Versions: spec.versions, Storage: map[string]map[string]rest.Storage{}}
	for _, v := range spec.versions {
		g.Storage[v] = storage
	}
	return g, nil
}

// addAll builds each resource into storage.
func (b *catalogBuilder) addAll(storage map[string]rest.Storage, fns ...resourceFunc) error {
	for _, fn := range fns {
		m, err := fn(b.scheme, b.getter)
		if err != nil {
			return err
		}
		for path, s := range m {
			if _, dup := storage[path]; dup {
				return fmt.Errorf("resource %q built twice", path)
			}
			storage[path] = s
		}
	}
	return nil
}

// one adapts a constructor of a resource without subresources.
func one[T rest.Storage](name string, f func(*runtime.Scheme, generic.RESTOptionsGetter) (T, error)) resourceFunc {
	return func(s *runtime.Scheme, g generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
		st, err := f(s, g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return map[string]rest.Storage{name: st}, nil
	}
}

// serviceAccounts builds serviceaccounts and serviceaccounts/token, whose
// tokens are signed with --service-account-signing-key-file or a key kept
// in the data dir.
func (b *catalogBuilder) serviceAccounts(scheme *runtime.Scheme, getter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	key, err := sa.LoadOrGenerateSigningKey(b.config.ServiceAccountSigningKeyFile, filepath.Join(b.config.DataDir, "pki", "sa.key"))
	if err != nil {
		return nil, fmt.Errorf("--service-account-signing-key-file: %w", err)
	}
	issuer, err := sa.NewIssuer(b.config.ServiceAccountIssuers[0], key)
	if err != nil {
		return nil, fmt.Errorf("--service-account-issuer: %w", err)
	}
	return serviceaccount.NewStorage(scheme, getter, serviceaccount.Options{
		Issuer:           issuer,
		APIAudiences:     b.config.APIAudiences,
		MaxExpiration:    b.config.ServiceAccountMaxTokenExpiration,
		ExtendExpiration: true,
	})
}

// pods builds pods and their subresources; evictions consult the
// disruption budgets of the policy group.
func (b *catalogBuilder) pods(scheme *runtime.Scheme, getter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	list, okList := b.storage("policy", "poddisruptionbudgets").(rest.Lister)
	status, okStatus := b.storage("policy", "poddisruptionbudgets/status").(rest.Updater)
	if !okList || !okStatus {
		return nil, errors.New("pods: the poddisruptionbudgets storage must be built first")
	}
	return pod.NewStorage(scheme, getter, pod.Options{DisruptionBudgets: pod.NewDisruptionBudgets(list, status)})
}

// services builds services, whose cluster IPs are IPAddress objects of the
// networking group.
func (b *catalogBuilder) services(scheme *runtime.Scheme, getter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	ips, ok := b.storage("networking.k8s.io", "ipaddresses").(ipallocator.Storage)
	if !ok {
		return nil, errors.New("services: the ipaddresses storage must be built first")
	}
	return service.NewStorage(scheme, getter, service.Options{
		ServiceCIDR:   b.config.ServiceClusterIPRange,
		NodePortRange: portallocator.Range{Base: b.config.ServiceNodePortBase, Size: b.config.ServiceNodePortSize},
		IPAddresses:   ips,
	})
}
