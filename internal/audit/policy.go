package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// LoadPolicy reads an audit.k8s.io/v1 Policy, YAML or JSON, from path.
// Decoding is strict: unknown and duplicate fields are errors. The policy
// is validated as kube-apiserver validates it and must have a rule.
func LoadPolicy(path string) (*auditv1.Policy, error) {
	if path == "" {
		return nil, errors.New("file path not specified")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read file path %q: %w", path, err)
	}
	p, err := parsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("%w: from file %v", err, path)
	}
	return p, nil
}

func parsePolicy(data []byte) (*auditv1.Policy, error) {
	// The type is checked first so a policy of another kind or version is
	// named as such rather than as a list of unknown fields.
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return nil, fmt.Errorf("failed decoding: %w", err)
	}
	if tm.Kind == "" {
		return nil, fmt.Errorf("failed decoding: Object 'Kind' is missing in '%s'", bytes.TrimSpace(data))
	}
	if tm.APIVersion != auditv1.SchemeGroupVersion.String() || tm.Kind != "Policy" {
		return nil, fmt.Errorf("failed decoding: no kind %q is registered for version %q", tm.Kind, tm.APIVersion)
	}
	p := &auditv1.Policy{}
	if err := yaml.UnmarshalStrict(data, p, func(d *json.Decoder) *json.Decoder {
		d.DisallowUnknownFields()
		return d
	}); err != nil {
		return nil, fmt.Errorf("failed decoding: strict decoding error: %w", err)
	}
	if errs := validatePolicy(p); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if len(p.Rules) == 0 {
		return nil, errors.New("loaded illegal policy with 0 rules")
	}
	return p, nil
}

var (
	validLevels = []string{
		string(auditv1.LevelNone), string(auditv1.LevelMetadata),
		string(auditv1.LevelRequest), string(auditv1.LevelRequestResponse),
	}
	validStages = []string{
		string(auditv1.StageRequestReceived), string(auditv1.StageResponseStarted),
		string(auditv1.StageResponseComplete), string(auditv1.StagePanic),
	}
)

// validatePolicy reports the errors kube-apiserver reports, at the same
// field paths and in the same words.
func validatePolicy(p *auditv1.Policy) field.ErrorList {
	errs := validateStages(p.OmitStages, field.NewPath("omitStages"))
	rules := field.NewPath("rules")
	for i := range p.Rules {
		errs = append(errs, validateRule(&p.Rules[i], rules.Index(i))...)
	}
	return errs
}

func validateRule(r *auditv1.PolicyRule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Level {
	case auditv1.LevelNone, auditv1.LevelMetadata, auditv1.LevelRequest, auditv1.LevelRequestResponse:
	case "":
		errs = append(errs, field.Required(path.Child("level"), ""))
	default:
		errs = append(errs, field.NotSupported(path.Child("level"), r.Level, validLevels))
	}
	errs = append(errs, validateURLs(r.NonResourceURLs, path.Child("nonResourceURLs"))...)
	errs = append(errs, validateResources(r.Resources, path.Child("resources"))...)
	errs = append(errs, validateStages(r.OmitStages, path.Child("omitStages"))...)
	if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
		errs = append(errs, field.Invalid(path.Child("nonResourceURLs"), r.NonResourceURLs,
			"rules cannot apply to both regular resources and non-resource URLs"))
	}
	return errs
}

func validateURLs(urls []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, u := range urls {
		if u == "*" {
			continue
		}
		if !strings.HasPrefix(u, "/") {
			errs = append(errs, field.Invalid(path.Index(i), u, "non-resource URL rules must begin with a '/' character"))
		}
		if u != "" && strings.Contains(u[:len(u)-1], "*") {
			errs = append(errs, field.Invalid(path.Index(i), u, "non-resource URL wildcards '*' must be the final character of the rule"))
		}
	}
	return errs
}

func validateResources(grs []auditv1.GroupResources, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, gr := range grs {
		// "" is the core group; other groups are lower-case DNS subdomains,
		// which also rejects a group written with its version.
		if gr.Group != "" && gr.Group != "*" {
			if msgs := apivalidation.NameIsDNSSubdomain(gr.Group, false); len(msgs) > 0 {
				errs = append(errs, field.Invalid(path.Child("group"), gr.Group, strings.Join(msgs, ",")))
			}
		}
		if len(gr.ResourceNames) > 0 && len(gr.Resources) == 0 {
			errs = append(errs, field.Invalid(path.Child("resourceNames"), gr.ResourceNames, "using resourceNames requires at least one resource"))
		}
	}
	return errs
}

func validateStages(stages []auditv1.Stage, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range stages {
		if !slices.Contains(validStages, string(s)) {
			errs = append(errs, field.Invalid(path.Index(i), string(s), "allowed stages are "+strings.Join(validStages, ",")))
		}
	}
	return errs
}
