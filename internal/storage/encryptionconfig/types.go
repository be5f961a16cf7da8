package encryptionconfig

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is the only version of the file kapi reads.
var SchemeGroupVersion = schema.GroupVersion{Group: "apiserver.config.k8s.io", Version: "v1"}

// EncryptionConfiguration is the --encryption-provider-config file
// (apiserver.config.k8s.io/v1): lists of resources, each with the
// providers its values are written and read with. Lists earlier in the file
// take precedence; wildcards ("*.", "*.apps", "*.*") may not hide a later
// rule.
type EncryptionConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	Resources       []ResourceConfiguration `json:"resources"`
}

// ResourceConfiguration names resources ("secrets", "deployments.apps",
// "*.apps", "*.", "*.*") and the providers for them, the first of which
// writes.
type ResourceConfiguration struct {
	Resources []string                `json:"resources"`
	Providers []ProviderConfiguration `json:"providers"`
}

// ProviderConfiguration holds exactly one provider.
type ProviderConfiguration struct {
	AESGCM    *AESConfiguration       `json:"aesgcm,omitempty"`
	AESCBC    *AESConfiguration       `json:"aescbc,omitempty"`
	Secretbox *SecretboxConfiguration `json:"secretbox,omitempty"`
	Identity  *IdentityConfiguration  `json:"identity,omitempty"`
	// KMS is parsed so that a KMS entry is reported as unsupported rather
	// than as a typo.
	KMS *KMSConfiguration `json:"kms,omitempty"`
}

// AESConfiguration lists the keys of an aesgcm or aescbc provider; the
// first encrypts, all decrypt.
type AESConfiguration struct {
	Keys []Key `json:"keys"`
}

// SecretboxConfiguration lists the keys of a secretbox provider.
type SecretboxConfiguration struct {
	Keys []Key `json:"keys"`
}

// Key is a named key; Secret is its base64 encoding.
type Key struct {
	Name   string `json:"name"`
	Secret string `json:"secret"`
}

// String keeps the secret out of logs and error messages.
func (k Key) String() string { return "Name: " + k.Name + ", Secret: [REDACTED]" }

// GoString keeps the secret out of %#v as well.
func (k Key) GoString() string { return k.String() }

// IdentityConfiguration is the identity provider; it has no settings.
type IdentityConfiguration struct{}

// KMSConfiguration is a KMS provider. kapi does not support KMS.
type KMSConfiguration struct {
	APIVersion string           `json:"apiVersion,omitempty"`
	Name       string           `json:"name"`
	CacheSize  *int32           `json:"cachesize,omitempty"`
	Endpoint   string           `json:"endpoint"`
	Timeout    *metav1.Duration `json:"timeout,omitempty"`
}

// DeepCopyObject makes EncryptionConfiguration a runtime.Object so the
// apimachinery decoder (apiVersion/kind checks, strict field checks) can
// read it.
func (in *EncryptionConfiguration) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := &EncryptionConfiguration{TypeMeta: in.TypeMeta}
	for _, rc := range in.Resources {
		cp := ResourceConfiguration{Resources: slices.Clone(rc.Resources)}
		for _, p := range rc.Providers {
			cp.Providers = append(cp.Providers, p.deepCopy())
		}
		out.Resources = append(out.Resources, cp)
	}
	return out
}

func (p ProviderConfiguration) deepCopy() ProviderConfiguration {
	out := ProviderConfiguration{}
	if p.AESGCM != nil {
		out.AESGCM = &AESConfiguration{Keys: slices.Clone(p.AESGCM.Keys)}
	}
	if p.AESCBC != nil {
		out.AESCBC = &AESConfiguration{Keys: slices.Clone(p.AESCBC.Keys)}
	}
	if p.Secretbox != nil {
		out.Secretbox = &SecretboxConfiguration{Keys: slices.Clone(p.Secretbox.Keys)}
	}
	if p.Identity != nil {
		out.Identity = &IdentityConfiguration{}
	}
	if p.KMS != nil {
		k := *p.KMS
		if k.CacheSize != nil {
			k.CacheSize = new(*k.CacheSize)
		}
		if k.Timeout != nil {
			k.Timeout = &metav1.Duration{Duration: k.Timeout.Duration}
		}
		out.KMS = &k
	}
	return out
}
