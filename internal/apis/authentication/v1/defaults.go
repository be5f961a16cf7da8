package v1

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterDefaults adds the defaulting functions of the group version's types to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&authenticationv1.TokenRequest{}, func(obj any) {
		SetDefaultsTokenRequestSpec(&obj.(*authenticationv1.TokenRequest).Spec)
	})
	return nil
}

// SetDefaultsTokenRequestSpec asks for an hour when no lifetime is given,
// as upstream.
func SetDefaultsTokenRequestSpec(spec *authenticationv1.TokenRequestSpec) {
	if spec.ExpirationSeconds == nil {
		spec.ExpirationSeconds = ptr.To[int64](3600)
	}
}
