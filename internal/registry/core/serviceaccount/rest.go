package serviceaccount

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the service account storage under "serviceaccounts"
// and, when opts.Issuer is set, the token subresource under
// "serviceaccounts/token".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, opts Options) (map[string]rest.Storage, error) {
	accounts, err := NewREST(scheme, optsGetter)
	if err != nil {
		return nil, err
	}
	storage := map[string]rest.Storage{"serviceaccounts": accounts}
	if opts.Issuer == nil {
		return storage, nil
	}
	token, err := NewTokenREST(accounts, opts)
	if err != nil {
		return nil, err
	}
	storage["serviceaccounts/token"] = token
	return storage, nil
}
