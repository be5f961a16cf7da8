package abac

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// The versions of the policy file format.
const (
	groupName  = "abac.authorization.kubernetes.io"
	v1beta1    = groupName + "/v1beta1"
	v0         = groupName + "/v0"
	policyKind = "Policy"
)

// policy is one line of the file in the form the matcher reads: v1beta1's
// spec after the conversions upstream applies ("*" subjects become
// system:authenticated; v0's empty fields become wildcards).
type policy struct {
	User            string `json:"user,omitempty"`
	Group           string `json:"group,omitempty"`
	Readonly        bool   `json:"readonly,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	NonResourcePath string `json:"nonResourcePath,omitempty"`
}

type typeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// v1beta1Policy is a versioned line.
type v1beta1Policy struct {
	typeMeta `json:",inline"`
	Spec     policy `json:"spec"`
}

// v0Policy is a legacy line: no spec, no API group, no non-resource path.
type v0Policy struct {
	User      string `json:"user,omitempty"`
	Group     string `json:"group,omitempty"`
	Readonly  bool   `json:"readonly,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// loadFile reads a policy file: one policy a line, blank lines and lines
// starting with # skipped. It also says how many lines were unversioned.
func loadFile(path string) ([]policy, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()

	var policies []policy
	unversioned := 0
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Bytes()
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		p, legacy, err := parseLine(trimmed)
		if err != nil {
			return nil, 0, fmt.Errorf("error reading policy file %s, line %d: %s: %w", path, n, line, err)
		}
		if legacy {
			unversioned++
		}
		policies = append(policies, p)
	}
	if err := scanner.Err(); err != nil {
		return nil, 0, fmt.Errorf("error reading policy file %s: %w", path, err)
	}
	return policies, unversioned, nil
}

// parseLine decodes one policy. A line without apiVersion and kind (or
// naming v0) is the legacy format; v1beta1 must say so in full. JSON is
// decoded case-sensitively and unknown fields are ignored, as upstream's
// decoder does; a line that is not JSON is read as YAML.
func parseLine(line []byte) (p policy, legacy bool, err error) {
	data := line
	if !bytes.HasPrefix(line, []byte("{")) {
		if data, err = yaml.YAMLToJSON(line); err != nil {
			return policy{}, false, err
		}
	}
	var tm typeMeta
	if err := utiljson.Unmarshal(data, &tm); err != nil {
		return policy{}, false, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
	}
	switch {
	case tm.APIVersion == v1beta1 && tm.Kind == policyKind:
		var in v1beta1Policy
		if err := utiljson.Unmarshal(data, &in); err != nil {
			return policy{}, false, err
		}
		return fromV1beta1(in.Spec), false, nil
	case (tm.APIVersion == "" || tm.APIVersion == v0) && (tm.Kind == "" || tm.Kind == policyKind):
		var in v0Policy
		if err := utiljson.Unmarshal(data, &in); err != nil {
			return policy{}, false, err
		}
		return fromV0(in), true, nil
	}
	version := tm.APIVersion
	if version == "" {
		version = v0
	}
	kind := tm.Kind
	if kind == "" {
		kind = policyKind
	}
	return policy{}, false, fmt.Errorf("no kind %q is registered for version %q", kind, version)
}

// fromV1beta1 maps a "*" user or group to every authenticated user, so
// that "*" never lets anonymous requests in.
func fromV1beta1(in policy) policy {
	if in.User == "*" || in.Group == "*" {
		in.Group = user.AllAuthenticated
		in.User = ""
	}
	return in
}

// fromV0 gives the legacy format its meaning: empty subject, "*" subjects,
// empty namespace and resource match everything authenticated, every API
// group, and (with neither namespace nor resource) every non-resource path.
func fromV0(in v0Policy) policy {
	out := policy{User: in.User, Group: in.Group, Readonly: in.Readonly, Resource: in.Resource, Namespace: in.Namespace, APIGroup: "*"}
	if in.User == "" && in.Group == "" {
		out.Group = user.AllAuthenticated
	}
	if in.User == "*" || in.Group == "*" {
		out.Group = user.AllAuthenticated
		out.User = ""
	}
	if in.Namespace == "" {
		out.Namespace = "*"
	}
	if in.Resource == "" {
		out.Resource = "*"
	}
	if in.Namespace == "" && in.Resource == "" {
		out.NonResourcePath = "*"
	}
	return out
}

// readOnlyVerbs are the verbs a readonly policy allows.
var readOnlyVerbs = []string{"get", "list", "watch"}

func isReadOnly(verb string) bool { return slices.Contains(readOnlyVerbs, verb) }

// pathMatches matches "*", an exact path, or a prefix ending in "*".
func pathMatches(pattern, path string) bool {
	if pattern == "*" || pattern == path {
		return true
	}
	return strings.HasSuffix(pattern, "*") && strings.HasPrefix(path, strings.TrimRight(pattern, "*"))
}
