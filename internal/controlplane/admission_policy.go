package controlplane

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/admission/policy/mutating"
	"github.com/kapi-dev/kapi/internal/admission/policy/validating"
	"github.com/kapi-dev/kapi/internal/apis/install"
)

// policyAdmissionFactories are the CEL admission policies
// (ValidatingAdmissionPolicy, MutatingAdmissionPolicy).
func policyAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		validating.PluginName: func(d *admissionDeps) (any, error) {
			v1 := d.informers.factory.Admissionregistration().V1()
			p, err := validating.New(v1.ValidatingAdmissionPolicies(), v1.ValidatingAdmissionPolicyBindings(), cachedNamespaces(d), policyParams(d))
			if err != nil {
				return nil, err
			}
			if d.authz != nil {
				p.Authorizer = d.authz.authorizer
			}
			if d.storage != nil {
				p.MatchEquivalents(newEquivalentMapper(d.scheme, d.storage.groups), d.scheme)
			}
			return p, nil
		},
		mutating.PluginName: func(d *admissionDeps) (any, error) {
			v1 := d.informers.factory.Admissionregistration().V1()
			p, err := mutating.New(v1.MutatingAdmissionPolicies(), v1.MutatingAdmissionPolicyBindings(), cachedNamespaces(d), policyParams(d), builtinTypeConverters())
			if err != nil {
				return nil, err
			}
			if d.authz != nil {
				p.Authorizer = d.authz.authorizer
			}
			if d.storage != nil {
				p.MatchEquivalents(newEquivalentMapper(d.scheme, d.storage.groups), d.scheme)
			}
			return p, nil
		},
	}
}

// policyParams reads policy parameters of any kind through the shared
// dynamic informers, and through the loopback client until they synced.
func policyParams(d *admissionDeps) policy.ParamSource {
	si := d.informers
	return policy.NewDynamicParams(si.dynamicClient, si.client.Discovery(), si.dynamic, si.startDynamic)
}

// builtinTypeConverters give mutating policies the server-side apply type
// converter of the built-in kinds, built on the first apply
// configuration; custom kinds get none (the plugin then merges without a
// schema).
func builtinTypeConverters() mutating.TypeConverters {
	schemas := sync.OnceValues(func() (*runtime.Scheme, *policy.BuiltinSchemas) {
		scheme := runtime.NewScheme()
		if err := install.InstallAll(scheme); err != nil {
			return nil, nil
		}
		return scheme, policy.NewBuiltinSchemas(scheme)
	})
	return func(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error) {
		scheme, s := schemas()
		if scheme == nil || !scheme.Recognizes(gvk) {
			return nil, nil
		}
		return s.TypeConverter()
	}
}
