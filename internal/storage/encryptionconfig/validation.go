package encryptionconfig

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Messages as kube-apiserver words them.
const (
	atLeastOneRequiredFmt = "at least one %s is required"
	mandatoryFieldFmt     = "%s is a mandatory field for a %s"
	keyLenFmt             = "secret is not of the expected length, got %d, expected one of %v"
	base64Msg             = "secrets must be base64 encoded"
	noProviderMsg         = "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity"
	moreThanOneMsg        = "more than one provider specified in a single element, should split into different list elements"
	kmsMsg                = "kms providers are not supported by kapi"
	duplicateMsg          = "the same resource cannot be specified multiple times"
	overlapMsg            = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"
	capitalMsg            = "resource name should not contain capital letters"
	starMsg               = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"
	nonRESTMsg            = "resources which do not have REST API/s cannot be encrypted"
	eventsGroupMsg        = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"
	extensionsGroupMsg    = "'extensions' group has been removed and cannot be used for encryption"
	acrossGroupsMsg       = "encrypting the same resource across groups is not supported"
)

// Key lengths each provider accepts.
var (
	aesKeySizes       = []int{16, 24, 32}
	secretboxKeySizes = []int{32}
)

// anyResource is the "*.*" rule.
var anyResource = schema.GroupResource{Group: "*", Resource: "*"}

// validate checks c as kube-apiserver does before any transformer is built.
func validate(c *EncryptionConfiguration) field.ErrorList {
	root := field.NewPath("resources")
	if len(c.Resources) == 0 {
		return field.ErrorList{field.Required(root, fmt.Sprintf(atLeastOneRequiredFmt, root))}
	}
	var errs field.ErrorList
	for i, rc := range c.Resources {
		r := root.Index(i).Child("resources")
		p := root.Index(i).Child("providers")
		if len(rc.Resources) == 0 {
			errs = append(errs, field.Required(r, fmt.Sprintf(atLeastOneRequiredFmt, r)))
		}
		errs = append(errs, validateOverlap(rc.Resources, r)...)
		errs = append(errs, validateResourceNames(rc.Resources, r)...)
		if len(rc.Providers) == 0 {
			errs = append(errs, field.Required(p, fmt.Sprintf(atLeastOneRequiredFmt, p)))
		}
		for j, provider := range rc.Providers {
			errs = append(errs, validateProvider(provider, p.Index(j))...)
		}
	}
	return errs
}

// validateOverlap rejects a list that names a resource twice or names a
// resource together with a wildcard covering it.
func validateOverlap(resources []string, path *field.Path) field.ErrorList {
	grs := make([]schema.GroupResource, len(resources))
	for i, r := range resources {
		grs[i] = schema.ParseGroupResource(r)
	}
	duplicate, overlap := false, false
	for i, a := range grs {
		for j, b := range grs {
			switch {
			case i == j:
			case a == b:
				// A wildcard named twice also overlaps itself, as
				// upstream reports it.
				duplicate = true
				overlap = overlap || a.Resource == "*"
			case a == anyResource:
				overlap = true
			case a.Group == b.Group && (a.Resource == "*" || b.Resource == "*"):
				overlap = true
			}
		}
	}
	var errs field.ErrorList
	if duplicate {
		errs = append(errs, field.Invalid(path, resources, duplicateMsg))
	}
	if overlap {
		errs = append(errs, field.Invalid(path, resources, overlapMsg))
	}
	return errs
}

// validateResourceNames rejects names that can never match a stored
// resource.
func validateResourceNames(resources []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, res := range resources {
		if msg := resourceNameProblem(res); msg != "" {
			errs = append(errs, field.Invalid(path.Index(i), res, msg))
		}
	}
	return errs
}

func resourceNameProblem(res string) string {
	gr := schema.ParseGroupResource(res)
	switch {
	case strings.ToLower(res) != res:
		return capitalMsg
	case res == "*":
		return starMsg
	case res == "apiserveripinfo", res == "serviceipallocations", res == "servicenodeportallocations":
		return nonRESTMsg
	case gr.Group == "events.k8s.io":
		return eventsGroupMsg
	case gr.Group == "extensions":
		return extensionsGroupMsg
	case gr.Group == "*" && gr.Resource != "*":
		return acrossGroupsMsg
	}
	return ""
}

// validateProvider checks that an entry holds one supported provider with
// usable keys.
func validateProvider(p ProviderConfiguration, path *field.Path) field.ErrorList {
	names := providerNames(p)
	switch {
	case len(names) == 0:
		return field.ErrorList{field.Invalid(path, "{}", noProviderMsg)}
	case len(names) > 1:
		// The names, not the entry, are shown: the entry holds secrets.
		return field.ErrorList{field.Invalid(path, strings.Join(names, ", "), moreThanOneMsg)}
	}
	switch {
	case p.KMS != nil:
		return field.ErrorList{field.Forbidden(path.Child("kms"), kmsMsg)}
	case p.AESGCM != nil:
		return validateKeys(p.AESGCM.Keys, path.Child("aesgcm", "keys"), aesKeySizes)
	case p.AESCBC != nil:
		return validateKeys(p.AESCBC.Keys, path.Child("aescbc", "keys"), aesKeySizes)
	case p.Secretbox != nil:
		return validateKeys(p.Secretbox.Keys, path.Child("secretbox", "keys"), secretboxKeySizes)
	}
	return nil
}

// providerNames lists the providers an entry sets.
func providerNames(p ProviderConfiguration) []string {
	var names []string
	for _, c := range []struct {
		name string
		set  bool
	}{
		{"kms", p.KMS != nil},
		{"aesgcm", p.AESGCM != nil},
		{"aescbc", p.AESCBC != nil},
		{"secretbox", p.Secretbox != nil},
		{"identity", p.Identity != nil},
	} {
		if c.set {
			names = append(names, c.name)
		}
	}
	return names
}

func validateKeys(keys []Key, path *field.Path, sizes []int) field.ErrorList {
	if len(keys) == 0 {
		return field.ErrorList{field.Required(path, fmt.Sprintf(atLeastOneRequiredFmt, "keys"))}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, validateKey(k, path.Index(i), sizes)...)
	}
	return errs
}

// validateKey never puts the secret in an error: a bad one shows as
// "REDACTED".
func validateKey(k Key, path *field.Path, sizes []int) field.ErrorList {
	var errs field.ErrorList
	if k.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), fmt.Sprintf(mandatoryFieldFmt, "name", "key")))
	}
	if k.Secret == "" {
		return append(errs, field.Required(path.Child("secret"), fmt.Sprintf(mandatoryFieldFmt, "secret", "key")))
	}
	secret, err := base64.StdEncoding.DecodeString(k.Secret)
	if err != nil {
		return append(errs, field.Invalid(path.Child("secret"), "REDACTED", base64Msg))
	}
	if !slices.Contains(sizes, len(secret)) {
		errs = append(errs, field.Invalid(path.Child("secret"), "REDACTED", fmt.Sprintf(keyLenFmt, len(secret), sizes)))
	}
	return errs
}
