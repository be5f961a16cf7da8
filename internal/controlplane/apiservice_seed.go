package controlplane

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/controllers/autoregister"
	registryrest "github.com/kapi-dev/kapi/internal/registry/rest"
)

// apiServiceSeed is the local APIServices kube-apiserver-autoregistration
// creates on empty storage (see seed.go), one per built-in group version
// of builtin. The create gives a local APIService its Available
// condition, so the availability controller then has nothing to write
// and autoregister-completion passes as soon as its informer lists them:
// on etcd those 2×24 writes through the API were the last ~100 ms of a
// start.
func apiServiceSeed(builtin []schema.GroupVersion) seedSet {
	return seedSet{
		resources: []schema.GroupResource{{Group: apiregistrationv1.GroupName, Resource: "apiservices"}},
		objects: func(*runtime.Scheme) ([]seedObject, error) {
			var out []seedObject
			for _, gv := range builtin {
				if s := builtinAPIServiceObject(gv); s != nil {
					out = append(out, seedObject{obj: s})
				}
			}
			return out, nil
		},
	}
}

// builtinAPIServiceObjects keeps one object per group version for the
// process, so the seed's memo of managed fields recognizes it
// (seed_fields.go); the writer copies it.
var builtinAPIServiceObjects sync.Map // schema.GroupVersion → *apiregistrationv1.APIService

func builtinAPIServiceObject(gv schema.GroupVersion) *apiregistrationv1.APIService {
	if v, ok := builtinAPIServiceObjects.Load(gv); ok {
		return v.(*apiregistrationv1.APIService)
	}
	s := autoregister.BuiltinAPIService(gv)
	if s == nil {
		return nil
	}
	v, _ := builtinAPIServiceObjects.LoadOrStore(gv, autoregister.OnStart(s))
	return v.(*apiregistrationv1.APIService)
}

// withAPIServices is lookup with the aggregator's apiservices storage.
func withAPIServices(lookup func(group, resource string) registryrest.Storage, apiServices map[string]registryrest.Storage) func(group, resource string) registryrest.Storage {
	return func(group, resource string) registryrest.Storage {
		if group == apiregistrationv1.GroupName {
			return apiServices[resource]
		}
		return lookup(group, resource)
	}
}
