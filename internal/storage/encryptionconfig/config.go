// Package encryptionconfig reads the --encryption-provider-config file (an
// apiserver.config.k8s.io/v1 EncryptionConfiguration) and builds the value
// transformer each resource's stored values pass through. Providers aescbc,
// aesgcm, secretbox and identity are supported with kube-apiserver's stored
// layouts and prefixes ("k8s:enc:<provider>:v1:<key name>:"), so etcd data
// written by either server is readable by the other; KMS is rejected.
package encryptionconfig

import (
	"crypto/aes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/storage/value"
	aestransformer "github.com/kapi-dev/kapi/internal/storage/value/encrypt/aes"
	"github.com/kapi-dev/kapi/internal/storage/value/encrypt/identity"
	"github.com/kapi-dev/kapi/internal/storage/value/encrypt/secretbox"
)

// The prefixes that mark each provider's values in etcd; the key's name and
// ":" follow.
const (
	AESCBCPrefix    = "k8s:enc:aescbc:v1:"
	AESGCMPrefix    = "k8s:enc:aesgcm:v1:"
	SecretboxPrefix = "k8s:enc:secretbox:v1:"
)

// Config is a loaded encryption configuration: a transformer per resource
// rule.
type Config struct {
	transformers map[schema.GroupResource]value.Transformer
}

// Load reads, validates and builds the configuration at path. Errors say
// which file and, for invalid content, which field.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("error while parsing file: error while loading file: error reading encryption provider configuration file %q: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("error while parsing file: error while loading file: encryption provider configuration file %q is empty", path)
	}
	cfg, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("error while parsing file: error decoding encryption provider configuration file %q: %w", path, err)
	}
	if errs := validate(cfg); len(errs) > 0 {
		return nil, fmt.Errorf("error while parsing file: %w", errs.ToAggregate())
	}
	c, err := build(cfg)
	if err != nil {
		return nil, fmt.Errorf("error while building transformers: %w", err)
	}
	return c, nil
}

// TransformerFor returns the transformer for gr's values: that of the rule
// naming gr, else of "*.<group>", else of "*.*"; nil (store as encoded) when
// no rule covers gr. A nil Config has no rules.
func (c *Config) TransformerFor(gr schema.GroupResource) value.Transformer {
	if c == nil {
		return nil
	}
	for _, rule := range []schema.GroupResource{gr, {Group: gr.Group, Resource: "*"}, anyResource} {
		if t, ok := c.transformers[rule]; ok {
			return t
		}
	}
	return nil
}

// decode reads YAML or JSON strictly: an unknown or duplicated field is an
// error, as is any apiVersion/kind other than the v1
// EncryptionConfiguration.
func decode(data []byte) (*EncryptionConfiguration, error) {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(SchemeGroupVersion, &EncryptionConfiguration{})
	codecs := serializer.NewCodecFactory(scheme, serializer.EnableStrict)
	obj, gvk, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
	switch {
	// These two errors quote the whole file, keys included.
	case runtime.IsMissingKind(err):
		return nil, errors.New("Object 'Kind' is missing")
	case runtime.IsMissingVersion(err):
		return nil, errors.New("Object 'apiVersion' is missing")
	case err != nil:
		return nil, err
	}
	cfg, ok := obj.(*EncryptionConfiguration)
	if !ok {
		return nil, fmt.Errorf("got unexpected config type: %v", gvk)
	}
	return cfg, nil
}

// build makes the transformers of a validated configuration. A rule may not
// follow a wildcard that already covers it, since it would never apply.
func build(cfg *EncryptionConfiguration) (*Config, error) {
	lists := map[schema.GroupResource][]value.PrefixTransformer{}
	for _, rc := range cfg.Resources {
		providers, err := providerTransformers(rc.Providers)
		if err != nil {
			return nil, err
		}
		for _, res := range rc.Resources {
			gr := schema.ParseGroupResource(res)
			for _, wider := range []schema.GroupResource{{Group: gr.Group, Resource: "*"}, anyResource} {
				if _, masked := lists[wider]; masked {
					return nil, fmt.Errorf("resource %q is masked by earlier rule %q", ruleString(gr), ruleString(wider))
				}
			}
			lists[gr] = append(lists[gr], providers...)
		}
	}
	c := &Config{transformers: make(map[schema.GroupResource]value.Transformer, len(lists))}
	for gr, list := range lists {
		c.transformers[gr] = value.NewPrefixTransformers(errors.New("no matching prefix found"), list...)
	}
	return c, nil
}

// ruleString spells a rule as the file does ("*." for the core group).
func ruleString(gr schema.GroupResource) string {
	if gr.Group == "" && gr.Resource == "*" {
		return "*."
	}
	return gr.String()
}

// providerTransformers builds one prefix transformer per provider, in order.
func providerTransformers(providers []ProviderConfiguration) ([]value.PrefixTransformer, error) {
	var out []value.PrefixTransformer
	for _, p := range providers {
		var t value.PrefixTransformer
		var err error
		switch {
		case p.AESGCM != nil:
			t, err = keyedTransformer(AESGCMPrefix, "AES", p.AESGCM.Keys, newGCM)
		case p.AESCBC != nil:
			t, err = keyedTransformer(AESCBCPrefix, "AES", p.AESCBC.Keys, newCBC)
		case p.Secretbox != nil:
			t, err = keyedTransformer(SecretboxPrefix, "Secretbox", p.Secretbox.Keys, newSecretbox)
		case p.Identity != nil:
			t = value.PrefixTransformer{Prefix: []byte{}, Transformer: identity.NewEncryptCheckTransformer()}
		default:
			// validate rejects KMS and empty entries first.
			return nil, errors.New("provider does not contain any of the expected providers: AESGCM, AESCBC, Secretbox, Identity")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// keyedTransformer serves one provider's keys under its prefix: the first
// key writes; a value names the key it was written with after the prefix.
func keyedTransformer(prefix, kind string, keys []Key, newFn func([]byte) (value.Transformer, error)) (value.PrefixTransformer, error) {
	perKey := make([]value.PrefixTransformer, 0, len(keys))
	for _, k := range keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("could not obtain secret for named key %s: %w", k.Name, err)
		}
		t, err := newFn(secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("error while creating transformer for named key %s: %w", k.Name, err)
		}
		perKey = append(perKey, value.PrefixTransformer{Prefix: []byte(k.Name + ":"), Transformer: t})
	}
	noKey := fmt.Errorf("no matching key was found for the provided %s transformer", kind)
	return value.PrefixTransformer{
		Prefix:      []byte(prefix),
		Transformer: value.NewPrefixTransformers(noKey, perKey...),
	}, nil
}

func newGCM(key []byte) (value.Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return aestransformer.NewGCMTransformer(block)
}

func newCBC(key []byte) (value.Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return aestransformer.NewCBCTransformer(block), nil
}

func newSecretbox(key []byte) (value.Transformer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("expected key size 32 for secretbox provider, got %v", len(key))
	}
	return secretbox.NewSecretboxTransformer([32]byte(key)), nil
}
