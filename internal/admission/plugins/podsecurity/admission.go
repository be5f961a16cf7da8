// Package podsecurity is the PodSecurity admission plugin: the Pod
// Security Standards (privileged, baseline, restricted) applied by the
// pod-security.kubernetes.io/{enforce,audit,warn}[-version] labels of a
// namespace. Enforce refuses pods that break the level; audit records the
// violation on the audit event; warn answers with Warning headers, also
// for the pod templates of workloads and, when a namespace's enforce
// level is tightened, for the pods already in it. The checks are kapi's
// own, written after the standards and upstream's messages.
package podsecurity

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/audit"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "PodSecurity"

// The audit annotations the plugin writes.
const (
	AnnotationEnforcePolicy   = labelPrefix + "enforce-policy"
	AnnotationAuditViolations = labelPrefix + "audit-violations"
	AnnotationExempt          = labelPrefix + "exempt"
	AnnotationError           = labelPrefix + "error"
)

// Options are what the plugin reads.
type Options struct {
	Config       *Config
	GetNamespace func(ctx context.Context, name string) (*corev1.Namespace, error)
	// ListPods lists a namespace's pods, for the warnings about a
	// tightened enforce level.
	ListPods func(ctx context.Context, namespace string) ([]*corev1.Pod, error)
}

// Plugin is the PodSecurity admission plugin.
type Plugin struct {
	opts  Options
	cfg   *Config
	evals *evaluator
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin; a nil Config is upstream's default one.
func New(o Options) *Plugin {
	cfg := o.Config
	if cfg == nil {
		cfg, _ = ParseConfig(nil)
	}
	return &Plugin{opts: o, cfg: cfg, evals: newEvaluator(allChecks())}
}

var (
	podsResource       = schema.GroupResource{Resource: "pods"}
	namespacesResource = schema.GroupResource{Resource: "namespaces"}
	// workloads are the resources with a pod template, checked for warn
	// and audit only.
	workloads = map[schema.GroupResource]bool{
		{Resource: "replicationcontrollers"}:      true,
		{Resource: "podtemplates"}:                true,
		{Group: "apps", Resource: "replicasets"}:  true,
		{Group: "apps", Resource: "deployments"}:  true,
		{Group: "apps", Resource: "statefulsets"}: true,
		{Group: "apps", Resource: "daemonsets"}:   true,
		{Group: "batch", Resource: "jobs"}:        true,
		{Group: "batch", Resource: "cronjobs"}:    true,
	}
	// ignoredPodSubresources change nothing the standards look at.
	ignoredPodSubresources = map[string]bool{
		"exec": true, "attach": true, "binding": true, "eviction": true,
		"log": true, "portforward": true, "proxy": true, "status": true,
	}
)

// Validate applies the namespace's policy to pods, pod templates and
// namespace label changes.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	gr := a.Resource.GroupResource()
	switch {
	case gr == podsResource:
		return p.validatePod(ctx, a)
	case gr == namespacesResource:
		return p.validateNamespace(ctx, a)
	case workloads[gr]:
		return p.validateWorkload(ctx, a)
	}
	return nil
}

func (p *Plugin) exemptNamespace(ns string) bool {
	return ns != "" && slices.Contains(p.cfg.Namespaces, ns)
}

func (p *Plugin) exemptUser(a *admission.Attributes) bool {
	return a.UserInfo != nil && a.UserInfo.GetName() != "" && slices.Contains(p.cfg.Usernames, a.UserInfo.GetName())
}

func (p *Plugin) exemptRuntimeClass(name *string) bool {
	return name != nil && *name != "" && slices.Contains(p.cfg.RuntimeClasses, *name)
}

// exempt tells (and records on the audit event) whether the request's
// namespace or user is exempt.
func (p *Plugin) exempt(ctx context.Context, a *admission.Attributes) bool {
	reason := ""
	switch {
	case p.exemptNamespace(a.Namespace):
		reason = "namespace"
	case p.exemptUser(a):
		reason = "user"
	default:
		return false
	}
	audit.AddAnnotation(ctx, AnnotationExempt, reason)
	return true
}

func (p *Plugin) validatePod(ctx context.Context, a *admission.Attributes) error {
	if ignoredPodSubresources[a.Subresource] {
		return nil
	}
	if p.exempt(ctx, a) {
		return nil
	}
	ns, err := p.opts.GetNamespace(ctx, a.Namespace)
	if err != nil {
		status := apierrors.NewInternalError(fmt.Errorf("failed to lookup namespace %q", a.Namespace))
		audit.AddAnnotation(ctx, AnnotationError, fmt.Sprintf("%s: %v", status.ErrStatus.Message, err))
		return status
	}
	policy, policyErrs := policyFromLabels(ns.Labels, p.cfg.Defaults)
	if len(policyErrs) == 0 && policy.fullyPrivileged() {
		audit.AddAnnotation(ctx, AnnotationEnforcePolicy, LevelVersion{Privileged, Latest}.String())
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest("failed to decode pod")
	}
	if a.Operation == admission.Update {
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return apierrors.NewBadRequest("failed to decode old pod")
		}
		if !significantUpdate(pod, old) {
			return nil
		}
	}
	return p.evaluate(ctx, a, policy, policyErrs, &pod.ObjectMeta, &pod.Spec, true)
}

func (p *Plugin) validateWorkload(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "" {
		return nil
	}
	if p.exempt(ctx, a) {
		return nil
	}
	ns, err := p.opts.GetNamespace(ctx, a.Namespace)
	if err != nil {
		audit.AddAnnotation(ctx, AnnotationError, fmt.Sprintf("failed to lookup namespace %q: %v", a.Namespace, err))
		return nil
	}
	policy, policyErrs := policyFromLabels(ns.Labels, p.cfg.Defaults)
	if len(policyErrs) == 0 && policy.Warn.Level == Privileged && policy.Audit.Level == Privileged {
		return nil
	}
	meta, spec := podTemplate(a.Object)
	if spec == nil {
		return nil
	}
	return p.evaluate(ctx, a, policy, policyErrs, meta, spec, false)
}

// podTemplate is the pod part of a workload, nil when it has none.
func podTemplate(obj runtime.Object) (*metav1.ObjectMeta, *corev1.PodSpec) {
	var t *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *corev1.PodTemplate:
		t = &o.Template
	case *corev1.ReplicationController:
		t = o.Spec.Template
	case *appsv1.ReplicaSet:
		t = &o.Spec.Template
	case *appsv1.Deployment:
		t = &o.Spec.Template
	case *appsv1.DaemonSet:
		t = &o.Spec.Template
	case *appsv1.StatefulSet:
		t = &o.Spec.Template
	case *batchv1.Job:
		t = &o.Spec.Template
	case *batchv1.CronJob:
		t = &o.Spec.JobTemplate.Spec.Template
	}
	if t == nil {
		return nil, nil
	}
	return &t.ObjectMeta, &t.Spec
}

// evaluate applies the policy: enforce (pods only) refuses, audit
// annotates the audit event, warn adds a Warning header.
func (p *Plugin) evaluate(ctx context.Context, a *admission.Attributes, policy Policy, policyErrs field.ErrorList, meta *metav1.ObjectMeta, spec *corev1.PodSpec, enforce bool) error {
	if p.exemptRuntimeClass(spec.RuntimeClassName) {
		audit.AddAnnotation(ctx, AnnotationExempt, "runtimeClass")
		return nil
	}
	if len(policyErrs) > 0 {
		audit.AddAnnotation(ctx, AnnotationError, fmt.Sprintf("Failed to parse policy: %v", policyErrs.ToAggregate()))
	}
	results := map[LevelVersion][]finding{}
	eval := func(lv LevelVersion) []finding {
		if r, ok := results[lv]; ok {
			return r
		}
		r := p.evals.evaluate(lv, meta, spec)
		results[lv] = r
		return r
	}
	var refusal error
	if enforce {
		audit.AddAnnotation(ctx, AnnotationEnforcePolicy, policy.Enforce.String())
		if f := eval(policy.Enforce); len(f) > 0 {
			refusal = apierrors.NewForbidden(a.Resource.GroupResource(), a.Name,
				fmt.Errorf("violates PodSecurity %q: %s", policy.Enforce.String(), detailed(f)))
		}
	}
	if f := eval(policy.Audit); len(f) > 0 {
		audit.AddAnnotation(ctx, AnnotationAuditViolations, fmt.Sprintf("would violate PodSecurity %q: %s", policy.Audit.String(), detailed(f)))
	}
	if refusal != nil {
		return refusal
	}
	if f := eval(policy.Warn); len(f) > 0 {
		warning.AddWarning(ctx, "", fmt.Sprintf("would violate PodSecurity %q: %s", policy.Warn.String(), detailed(f)))
	}
	return nil
}

// significantUpdate: only image changes and new ephemeral containers can
// change what the standards see in a running pod.
func significantUpdate(pod, old *corev1.Pod) bool {
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return true
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Image != old.Spec.Containers[i].Image {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Image != old.Spec.InitContainers[i].Image {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		i := slices.IndexFunc(old.Spec.EphemeralContainers, func(o corev1.EphemeralContainer) bool { return o.Name == c.Name })
		if i < 0 || old.Spec.EphemeralContainers[i].Image != c.Image {
			return true
		}
	}
	return false
}
