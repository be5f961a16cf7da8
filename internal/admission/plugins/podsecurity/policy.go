package podsecurity

import (
	"fmt"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Level is one of the Pod Security Standards.
type Level string

// The levels, from least to most restrictive.
const (
	Privileged Level = "privileged"
	Baseline   Level = "baseline"
	Restricted Level = "restricted"
)

func (l Level) rank() int {
	switch l {
	case Baseline:
		return 1
	case Restricted:
		return 2
	}
	return 0
}

func parseLevel(s string) (Level, error) {
	switch l := Level(s); l {
	case Privileged, Baseline, Restricted:
		return l, nil
	}
	return Restricted, fmt.Errorf("must be one of privileged, baseline, restricted")
}

// Version is a policy version: v1.<minor>, or latest (minor < 0).
type Version struct{ minor int }

// Latest is the newest policy version kapi knows.
var Latest = Version{minor: -1}

// latestMinor is the version "latest" evaluates as (kube 1.37).
const latestMinor = 37

func (v Version) String() string {
	if v.minor < 0 {
		return "latest"
	}
	return fmt.Sprintf("v1.%d", v.minor)
}

// effective is the minor the checks are chosen by; versions past kapi's
// are evaluated as its latest.
func (v Version) effective() int {
	if v.minor < 0 || v.minor > latestMinor {
		return latestMinor
	}
	return v.minor
}

var versionPattern = regexp.MustCompile(`^v1\.(0|[1-9][0-9]*)$`)

func parseVersion(s string) (Version, error) {
	if s == "latest" {
		return Latest, nil
	}
	m := versionPattern.FindStringSubmatch(s)
	if m == nil {
		return Latest, fmt.Errorf(`must be "latest" or "v1.x"`)
	}
	minor, err := strconv.Atoi(m[1])
	if err != nil {
		return Latest, fmt.Errorf(`must be "latest" or "v1.x"`)
	}
	return Version{minor: minor}, nil
}

// LevelVersion is a level at a version ("restricted:latest").
type LevelVersion struct {
	Level   Level
	Version Version
}

func (lv LevelVersion) String() string { return fmt.Sprintf("%s:%s", lv.Level, lv.Version) }

func (lv LevelVersion) equivalent(o LevelVersion) bool {
	return (lv.Level == Privileged && o.Level == Privileged) || lv == o
}

// Policy is what a namespace asks for in each mode.
type Policy struct {
	Enforce, Audit, Warn LevelVersion
}

func (p Policy) fullyPrivileged() bool {
	return p.Enforce.Level == Privileged && p.Audit.Level == Privileged && p.Warn.Level == Privileged
}

func (p Policy) equivalent(o Policy) bool {
	return p.Enforce.equivalent(o.Enforce) && p.Audit.equivalent(o.Audit) && p.Warn.equivalent(o.Warn)
}

// The namespace labels.
const (
	labelPrefix         = "pod-security.kubernetes.io/"
	EnforceLevelLabel   = labelPrefix + "enforce"
	EnforceVersionLabel = labelPrefix + "enforce-version"
	AuditLevelLabel     = labelPrefix + "audit"
	AuditVersionLabel   = labelPrefix + "audit-version"
	WarnLevelLabel      = labelPrefix + "warn"
	WarnVersionLabel    = labelPrefix + "warn-version"
)

var labelsPath = field.NewPath("metadata", "labels")

// policyFromLabels reads a namespace's labels over the defaults. A bad
// enforce level fails closed (restricted); bad audit and warn levels fail
// open (privileged). Without its own warn label, warn follows a stricter
// enforce level.
func policyFromLabels(labels map[string]string, defaults Policy) (Policy, field.ErrorList) {
	p := defaults
	if len(labels) == 0 {
		return p, nil
	}
	var errs field.ErrorList
	bad := func(err error, label, value string) {
		if err != nil {
			errs = append(errs, field.Invalid(labelsPath.Key(label), value, err.Error()))
		}
	}
	var err error
	hasEnforceLevel := false
	if v, ok := labels[EnforceLevelLabel]; ok {
		p.Enforce.Level, err = parseLevel(v)
		hasEnforceLevel = err == nil
		bad(err, EnforceLevelLabel, v)
	}
	if v, ok := labels[EnforceVersionLabel]; ok {
		p.Enforce.Version, err = parseVersion(v)
		bad(err, EnforceVersionLabel, v)
	}
	if v, ok := labels[AuditLevelLabel]; ok {
		if p.Audit.Level, err = parseLevel(v); err != nil {
			p.Audit.Level = Privileged
		}
		bad(err, AuditLevelLabel, v)
	}
	if v, ok := labels[AuditVersionLabel]; ok {
		p.Audit.Version, err = parseVersion(v)
		bad(err, AuditVersionLabel, v)
	}
	_, hasWarnLevel := labels[WarnLevelLabel]
	_, hasWarnVersion := labels[WarnVersionLabel]
	if v, ok := labels[WarnLevelLabel]; ok {
		if p.Warn.Level, err = parseLevel(v); err != nil {
			p.Warn.Level = Privileged
		}
		bad(err, WarnLevelLabel, v)
	}
	if v, ok := labels[WarnVersionLabel]; ok {
		p.Warn.Version, err = parseVersion(v)
		bad(err, WarnVersionLabel, v)
	}
	if !hasWarnLevel && hasEnforceLevel && p.Enforce.Level.rank() > p.Warn.Level.rank() {
		p.Warn.Level = p.Enforce.Level
		if !hasWarnVersion {
			p.Warn.Version = p.Enforce.Version
		}
	}
	return p, errs
}
