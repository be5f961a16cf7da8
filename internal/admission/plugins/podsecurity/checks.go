package podsecurity

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// finding is a check's verdict: a pod passes when reason is empty. detail
// names what broke the rule; it is shown in parentheses after the reason.
type finding struct{ reason, detail string }

type checkFn func(meta *metav1.ObjectMeta, spec *corev1.PodSpec) finding

// revision is a check's rule from a policy version on.
type revision struct {
	since int // first v1.<since> the rule applies to
	fn    checkFn
	// overrides are baseline checks this restricted rule replaces.
	overrides []string
}

// check is one control of the Pod Security Standards.
type check struct {
	id        string
	level     Level
	revisions []revision // by increasing since
}

// at is the check's rule for policy version minor, if any.
func (c check) at(minor int) (revision, bool) {
	var r revision
	found := false
	for _, rev := range c.revisions {
		if rev.since <= minor {
			r, found = rev, true
		}
	}
	return r, found
}

// evaluator holds, for each level and version, the rules to run in
// upstream's order: baseline checks by id, then restricted checks by id.
type evaluator struct {
	baseline, restricted [latestMinor + 1][]checkFn
}

func newEvaluator(checks []check) *evaluator {
	ordered := slices.Clone(checks)
	slices.SortFunc(ordered, func(a, b check) int {
		if a.level != b.level {
			return a.level.rank() - b.level.rank()
		}
		return strings.Compare(a.id, b.id)
	})
	e := &evaluator{}
	for minor := 0; minor <= latestMinor; minor++ {
		overridden := map[string]bool{}
		for _, c := range ordered {
			if r, ok := c.at(minor); ok && c.level == Restricted {
				for _, id := range r.overrides {
					overridden[id] = true
				}
			}
		}
		for _, c := range ordered {
			r, ok := c.at(minor)
			if !ok {
				continue
			}
			if c.level == Baseline {
				e.baseline[minor] = append(e.baseline[minor], r.fn)
				if !overridden[c.id] {
					e.restricted[minor] = append(e.restricted[minor], r.fn)
				}
				continue
			}
			e.restricted[minor] = append(e.restricted[minor], r.fn)
		}
	}
	return e
}

// evaluate runs lv's rules and returns what the pod breaks.
func (e *evaluator) evaluate(lv LevelVersion, meta *metav1.ObjectMeta, spec *corev1.PodSpec) []finding {
	var fns []checkFn
	switch lv.Level {
	case Baseline:
		fns = e.baseline[lv.Version.effective()]
	case Restricted:
		fns = e.restricted[lv.Version.effective()]
	default:
		return nil
	}
	var out []finding
	for _, fn := range fns {
		if f := fn(meta, spec); f.reason != "" {
			out = append(out, f)
		}
	}
	return out
}

// detailed is the findings as upstream words them for one object:
// "reason (detail), reason, ...".
func detailed(fs []finding) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.reason)
		if f.detail != "" {
			b.WriteString(" (" + f.detail + ")")
		}
	}
	return b.String()
}

// reasons is the findings' reasons alone, as for a namespace's pods.
func reasons(fs []finding) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.reason
	}
	return strings.Join(out, ", ")
}

// allChecks are the controls of the standards as of policy v1.37.
func allChecks() []check {
	return append(baselineChecks(), restrictedChecks()...)
}

// visit calls fn for every container: init, regular and ephemeral.
func visit(spec *corev1.PodSpec, fn func(c *corev1.Container)) {
	for i := range spec.InitContainers {
		fn(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		fn(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		fn((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

func quoted(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return `"` + strings.Join(items, `", "`) + `"`
}

func plural(one, many string, n int) string {
	if n == 1 {
		return one
	}
	return many
}

// containersPhrase is `container "a"` or `containers "a", "b"`.
func containersPhrase(names []string) string {
	return plural("container", "containers", len(names)) + " " + quoted(names)
}

// userNamespaced pods (hostUsers: false) get some rules relaxed from v1.35.
func userNamespaced(spec *corev1.PodSpec) bool {
	return spec.HostUsers != nil && !*spec.HostUsers
}

func windows(spec *corev1.PodSpec) bool {
	return spec.OS != nil && spec.OS.Name == corev1.Windows
}

// sortedKeys is the set's members in order.
func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
