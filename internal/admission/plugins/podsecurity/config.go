package podsecurity

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// ConfigGroup is the group of the plugin's configuration.
const ConfigGroup = "pod-security.admission.config.k8s.io"

// configuration is PodSecurityConfiguration (v1 and v1beta1 have the same
// fields): the policy of namespaces without labels and who is exempt.
type configuration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Defaults   struct {
		Enforce        string `json:"enforce"`
		EnforceVersion string `json:"enforce-version"`
		Audit          string `json:"audit"`
		AuditVersion   string `json:"audit-version"`
		Warn           string `json:"warn"`
		WarnVersion    string `json:"warn-version"`
	} `json:"defaults"`
	Exemptions struct {
		Usernames      []string `json:"usernames"`
		Namespaces     []string `json:"namespaces"`
		RuntimeClasses []string `json:"runtimeClasses"`
	} `json:"exemptions"`
}

// Config is the parsed configuration.
type Config struct {
	Defaults Policy
	// Exempt usernames, namespaces and runtime class names.
	Usernames, Namespaces, RuntimeClasses []string
}

// ParseConfig reads a PodSecurityConfiguration; empty input gives
// upstream's defaults (everything privileged:latest, no exemptions).
func ParseConfig(data []byte) (*Config, error) {
	var c configuration
	if len(data) > 0 {
		if err := yaml.UnmarshalStrict(data, &c); err != nil {
			return nil, fmt.Errorf("PodSecurityConfiguration: %w", err)
		}
		if c.Kind != "PodSecurityConfiguration" || (c.APIVersion != ConfigGroup+"/v1" && c.APIVersion != ConfigGroup+"/v1beta1") {
			return nil, fmt.Errorf("PodSecurity configuration must be %s/v1 (or v1beta1) PodSecurityConfiguration, not %s %s", ConfigGroup, c.APIVersion, c.Kind)
		}
	}
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	var errs field.ErrorList
	path := field.NewPath("defaults")
	lv := func(level, version, name string) LevelVersion {
		l, err := parseLevel(or(level, string(Privileged)))
		if err != nil {
			errs = append(errs, field.Invalid(path.Child(name), level, err.Error()))
		}
		v, err := parseVersion(or(version, "latest"))
		if err != nil {
			errs = append(errs, field.Invalid(path.Child(name+"-version"), version, err.Error()))
		}
		return LevelVersion{l, v}
	}
	d := c.Defaults
	cfg := &Config{
		Defaults: Policy{
			Enforce: lv(d.Enforce, d.EnforceVersion, "enforce"),
			Audit:   lv(d.Audit, d.AuditVersion, "audit"),
			Warn:    lv(d.Warn, d.WarnVersion, "warn"),
		},
		Usernames: c.Exemptions.Usernames, Namespaces: c.Exemptions.Namespaces, RuntimeClasses: c.Exemptions.RuntimeClasses,
	}
	ex := field.NewPath("exemptions")
	for name, list := range map[string][]string{"usernames": cfg.Usernames, "namespaces": cfg.Namespaces, "runtimeClasses": cfg.RuntimeClasses} {
		for i, v := range list {
			if v == "" {
				errs = append(errs, field.Invalid(ex.Child(name).Index(i), v, "must not be empty"))
			} else if slices.Index(list, v) != i {
				errs = append(errs, field.Duplicate(ex.Child(name).Index(i), v))
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("PodSecurity configuration: %w", errs.ToAggregate())
	}
	return cfg, nil
}
