package eventratelimit

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// LimitType is what a limit's buckets are keyed by.
type LimitType string

// The limit types.
const (
	ServerLimitType          LimitType = "Server"
	NamespaceLimitType       LimitType = "Namespace"
	UserLimitType            LimitType = "User"
	SourceAndObjectLimitType LimitType = "SourceAndObject"
)

// Configuration is eventratelimit.admission.k8s.io/v1alpha1 Configuration.
type Configuration struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Limits     []Limit `json:"limits"`
}

// Limit is one token bucket per key of its type.
type Limit struct {
	Type  LimitType `json:"type"`
	QPS   int32     `json:"qps"`
	Burst int32     `json:"burst"`
	// CacheSize bounds the buckets kept (4096 when zero); an evicted
	// bucket starts full again.
	CacheSize int32 `json:"cacheSize,omitempty"`
}

const configVersion = "eventratelimit.admission.k8s.io/v1alpha1"

// LoadConfiguration decodes and validates data. The plugin has no
// defaults: no data is an empty configuration, which validation refuses,
// as upstream does.
func LoadConfiguration(data []byte) (*Configuration, error) {
	c := &Configuration{}
	if len(data) > 0 {
		if err := yaml.Unmarshal(data, c); err != nil {
			return nil, err
		}
		if c.APIVersion != configVersion || c.Kind != "Configuration" {
			return nil, fmt.Errorf("no kind %q is registered for version %q", c.Kind, c.APIVersion)
		}
	}
	if errs := validate(c); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return c, nil
}

var limitTypes = []string{string(NamespaceLimitType), string(ServerLimitType), string(SourceAndObjectLimitType), string(UserLimitType)}

func validate(c *Configuration) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("limits")
	if len(c.Limits) == 0 {
		errs = append(errs, field.Invalid(path, c.Limits, "must not be empty"))
	}
	for i, l := range c.Limits {
		p := path.Index(i)
		switch l.Type {
		case ServerLimitType, NamespaceLimitType, UserLimitType, SourceAndObjectLimitType:
		default:
			errs = append(errs, field.NotSupported(p.Child("type"), l.Type, limitTypes))
		}
		if l.Burst <= 0 {
			errs = append(errs, field.Invalid(p.Child("burst"), l.Burst, "must be positive"))
		}
		if l.QPS <= 0 {
			errs = append(errs, field.Invalid(p.Child("qps"), l.QPS, "must be positive"))
		}
		if l.Type != ServerLimitType && l.CacheSize < 0 {
			errs = append(errs, field.Invalid(p.Child("cacheSize"), l.CacheSize, "must not be negative"))
		}
	}
	return errs
}
