package podsecurity

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

const (
	// maxPodsToCheck and podCheckTimeout bound the look at existing pods
	// when a namespace's enforce level is tightened.
	maxPodsToCheck  = 3000
	podCheckTimeout = time.Second
)

// validateNamespace refuses bad policy labels and warns, when the enforce
// level gets stricter, about the pods already there that break it.
func (p *Plugin) validateNamespace(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "" {
		return nil
	}
	ns, ok := a.Object.(*corev1.Namespace)
	if !ok {
		return apierrors.NewBadRequest("failed to decode namespace")
	}
	policy, errs := policyFromLabels(ns.Labels, p.cfg.Defaults)
	invalid := func() error {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Namespace"}, ns.Name, errs)
	}
	if a.Operation == admission.Create {
		if len(errs) > 0 {
			return invalid()
		}
		p.warnExempt(ctx, ns, policy)
		return nil
	}
	old, ok := a.OldObject.(*corev1.Namespace)
	if !ok {
		return apierrors.NewBadRequest("failed to decode  old namespace")
	}
	oldPolicy, oldErrs := policyFromLabels(old.Labels, p.cfg.Defaults)
	if len(errs) > 0 && (len(oldErrs) == 0 || errs.ToAggregate().Error() != oldErrs.ToAggregate().Error()) {
		return invalid()
	}
	if policy.Enforce == oldPolicy.Enforce || policy.Enforce.Level == Privileged {
		return nil
	}
	if policy.Enforce.Version == oldPolicy.Enforce.Version && policy.Enforce.Level.rank() <= oldPolicy.Enforce.Level.rank() {
		return nil
	}
	if p.exemptNamespace(ns.Name) {
		p.warnExempt(ctx, ns, policy)
		return nil
	}
	for _, w := range p.existingPodWarnings(ctx, ns.Name, policy.Enforce) {
		warning.AddWarning(ctx, "", w)
	}
	return nil
}

// warnExempt tells whoever labels an exempt namespace that its labels do
// nothing.
func (p *Plugin) warnExempt(ctx context.Context, ns *corev1.Namespace, policy Policy) {
	if !p.exemptNamespace(ns.Name) || policy.fullyPrivileged() || policy.equivalent(p.cfg.Defaults) {
		return
	}
	var parts []string
	for _, m := range []struct {
		mode, level, version string
		lv                   LevelVersion
	}{
		{"enforce", EnforceLevelLabel, EnforceVersionLabel, policy.Enforce},
		{"audit", AuditLevelLabel, AuditVersionLabel, policy.Audit},
		{"warn", WarnLevelLabel, WarnVersionLabel, policy.Warn},
	} {
		_, hasLevel := ns.Labels[m.level]
		_, hasVersion := ns.Labels[m.version]
		if m.lv.Level != Privileged && (hasLevel || hasVersion) {
			parts = append(parts, m.mode+"="+m.lv.String())
		}
	}
	warning.AddWarning(ctx, "", fmt.Sprintf("namespace %q is exempt from Pod Security, and the policy (%s) will be ignored", ns.Name, strings.Join(parts, ", ")))
}

// existingPodWarnings checks the namespace's pods (one per controller
// first, at most maxPodsToCheck, within a second) against the new
// enforce level and groups them by what they break.
func (p *Plugin) existingPodWarnings(ctx context.Context, namespace string, enforce LevelVersion) []string {
	timeout := podCheckTimeout
	if deadline, ok := ctx.Deadline(); ok {
		if half := time.Until(deadline) / 2; half < timeout {
			timeout = half
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if p.opts.ListPods == nil {
		return []string{"failed to list pods while checking new PodSecurity enforce level"}
	}
	pods, err := p.opts.ListPods(ctx, namespace)
	if err != nil {
		return []string{"failed to list pods while checking new PodSecurity enforce level"}
	}
	pods = p.prioritize(pods)
	total := len(pods)
	if len(pods) > maxPodsToCheck {
		pods = pods[:maxPodsToCheck]
	}
	checked := len(pods)
	type group struct {
		first string
		count int
	}
	groups := map[string]*group{}
	var order []string
	for i, pod := range pods {
		if f := p.evals.evaluate(enforce, &pod.ObjectMeta, &pod.Spec); len(f) > 0 {
			w := reasons(f)
			g, seen := groups[w]
			if !seen {
				g = &group{first: pod.Name}
				groups[w] = g
				order = append(order, w)
			} else if pod.Name < g.first {
				g.first = pod.Name
			}
			g.count++
		}
		if ctx.Err() != nil {
			checked = i + 1
			break
		}
	}
	var out []string
	if checked < total {
		out = append(out, fmt.Sprintf("new PodSecurity enforce level only checked against the first %d of %d existing pods", checked, total))
	}
	if len(order) > 0 {
		out = append(out, fmt.Sprintf("existing pods in namespace %q violate the new PodSecurity enforce level %q", namespace, enforce.String()))
	}
	var pw []string
	for _, w := range order {
		g := groups[w]
		switch g.count {
		case 1:
			pw = append(pw, fmt.Sprintf("%s: %s", g.first, w))
		case 2:
			pw = append(pw, fmt.Sprintf("%s (and 1 other pod): %s", g.first, w))
		default:
			pw = append(pw, fmt.Sprintf("%s (and %d other pods): %s", g.first, g.count-1, w))
		}
	}
	sort.Strings(pw)
	return append(out, pw...)
}

// prioritize puts one pod per controller (and every pod without one)
// first, skipping exempt runtime classes.
func (p *Plugin) prioritize(pods []*corev1.Pod) []*corev1.Pod {
	var first, rest []*corev1.Pod
	seen := map[types.UID]bool{}
	for _, pod := range pods {
		if p.exemptRuntimeClass(pod.Spec.RuntimeClassName) {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		switch {
		case ref == nil:
			first = append(first, pod)
		case seen[ref.UID]:
			rest = append(rest, pod)
		default:
			seen[ref.UID] = true
			first = append(first, pod)
		}
	}
	return append(first, rest...)
}
