package controlplane

import (
	"errors"
	"fmt"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/coordination/lease"
	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	"github.com/kapi-dev/kapi/internal/registry/core/event"
	nsregistry "github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/core/secret"
	"github.com/kapi-dev/kapi/internal/registry/core/serviceaccount"
	eventsregistry "github.com/kapi-dev/kapi/internal/registry/events/event"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
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
		{"coordination.k8s.io", []string{"v1"}, []resourceFunc{one("leases", lease.NewREST)}},
	}
}

// catalogBuilder builds the storage of every built-in group, in the order
// their dependencies need (pods need disruption budgets, services need IP
// addresses).
type catalogBuilder struct {
	config *Config
	scheme *runtime.Scheme
	getter generic.RESTOptionsGetter

	namespaces *nsregistry.REST
	finalize   *nsregistry.FinalizeREST
}

func (b *catalogBuilder) build() ([]rest.APIGroupInfo, error) {
	core, err := b.coreGroup()
	if err != nil {
		return nil, err
	}
	groups := []rest.APIGroupInfo{core}
	events, err := eventsGroup(core)
	if err != nil {
		return nil, err
	}
	groups = append(groups, events)
	for _, spec := range plainGroups() {
		g, err := b.plainGroup(spec)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, nil
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
