package resourcequota

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Configuration is the plugin's configuration in an AdmissionConfiguration:
// apiserver.config.k8s.io/v1 ResourceQuotaConfiguration, or the older
// resourcequota.admission.k8s.io/v1beta1 and v1alpha1 Configuration.
type Configuration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// LimitedResources may only be consumed where a quota covers them.
	LimitedResources []LimitedResource `json:"limitedResources"`
}

// LimitedResource is a resource whose consumption needs a covering quota.
type LimitedResource struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Resource string `json:"resource"`
	// MatchContains: a consumed quota name containing any of these needs a
	// quota limiting that name.
	MatchContains []string `json:"matchContains,omitempty"`
	// MatchScopes: an object in any of these scopes needs a quota with
	// that scope.
	MatchScopes []corev1.ScopedResourceSelectorRequirement `json:"matchScopes,omitempty"`
}

var knownConfigKinds = map[string]string{
	"apiserver.config.k8s.io/v1":              "ResourceQuotaConfiguration",
	"resourcequota.admission.k8s.io/v1beta1":  "Configuration",
	"resourcequota.admission.k8s.io/v1alpha1": "Configuration",
}

// LoadConfiguration decodes and validates data (YAML or JSON); no data is
// the default, empty configuration.
func LoadConfiguration(data []byte) (*Configuration, error) {
	c := &Configuration{}
	if len(data) == 0 {
		return c, nil
	}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		return nil, err
	}
	if want, ok := knownConfigKinds[c.APIVersion]; !ok || want != c.Kind {
		return nil, fmt.Errorf("no kind %q is registered for version %q", c.Kind, c.APIVersion)
	}
	var errs field.ErrorList
	for i, l := range c.LimitedResources {
		if l.Resource == "" {
			errs = append(errs, field.Required(field.NewPath("limitedResources").Index(i).Child("resource"), ""))
		}
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return c, nil
}
