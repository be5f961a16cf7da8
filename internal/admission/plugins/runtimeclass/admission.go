// Package runtimeclass is the RuntimeClass admission plugin: a new pod
// naming a RuntimeClass gets the class's pod overhead and its scheduling
// (node selector and tolerations); a pod may not name a class that does
// not exist nor claim an overhead its class does not define.
package runtimeclass

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	nodev1listers "k8s.io/client-go/listers/node/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "RuntimeClass"

// Getter reads a RuntimeClass past the informer's cache.
type Getter func(ctx context.Context, name string) (*nodev1.RuntimeClass, error)

// Plugin is the RuntimeClass admission plugin.
type Plugin struct {
	lister nodev1listers.RuntimeClassLister
	get    Getter
}

var _ admission.Interface = (*Plugin)(nil)

// New returns the plugin over the shared lister, with get as the live
// fallback for a class the informer has not seen yet.
func New(lister nodev1listers.RuntimeClassLister, get Getter) *Plugin {
	return &Plugin{lister: lister, get: get}
}

// Admit copies the class's overhead and scheduling into the pod.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if pod == nil || err != nil {
		return err
	}
	if rc == nil {
		return nil
	}
	if rc.Overhead != nil {
		if len(pod.Spec.Overhead) > 0 && !equality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return podutil.Forbidden(a, errors.New("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
		pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
	}
	if s := rc.Scheduling; s != nil {
		selector := pod.Spec.NodeSelector
		if selector == nil {
			selector = map[string]string{}
		}
		for k, v := range s.NodeSelector {
			if have, ok := selector[k]; ok && have != v {
				return podutil.Forbidden(a, fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, have))
			}
			selector[k] = v
		}
		if len(selector) > 0 {
			pod.Spec.NodeSelector = selector
		}
		pod.Spec.Tolerations = MergeTolerations(pod.Spec.Tolerations, s.Tolerations)
	}
	return nil
}

// Validate refuses an overhead the pod's class does not define.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if pod == nil || err != nil || len(pod.Spec.Overhead) == 0 {
		return err
	}
	if rc == nil || rc.Overhead == nil {
		return podutil.Forbidden(a, errors.New("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
	}
	if !equality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
		return podutil.Forbidden(a, errors.New("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
	}
	return nil
}

// prepare returns the new pod (nil when the request is not a pod
// creation) and its class (nil when it names none).
func (p *Plugin) prepare(ctx context.Context, a *admission.Attributes) (*corev1.Pod, *nodev1.RuntimeClass, error) {
	if a.Operation != admission.Create || a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil, nil, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, nil, apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	if pod.Spec.RuntimeClassName == nil {
		return pod, nil, nil
	}
	name := *pod.Spec.RuntimeClassName
	rc, err := p.lister.Get(name)
	if apierrors.IsNotFound(err) && p.get != nil {
		rc, err = p.get(ctx, name)
	}
	if apierrors.IsNotFound(err) {
		return pod, nil, podutil.Forbidden(a, fmt.Errorf("pod rejected: RuntimeClass %q not found", name))
	}
	return pod, rc, err
}

// MergeTolerations joins two lists, keeping only the broadest of
// tolerations where one covers another (the first of equal ones).
func MergeTolerations(first, second []corev1.Toleration) []corev1.Toleration {
	all := append(append([]corev1.Toleration(nil), first...), second...)
	var merged []corev1.Toleration
next:
	for i, t := range all {
		for _, m := range merged {
			if covers(m, t) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !equality.Semantic.DeepEqual(t, later) && covers(later, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// covers tells whether ss tolerates everything t does.
func covers(ss, t corev1.Toleration) bool {
	if equality.Semantic.DeepEqual(t, ss) {
		return true
	}
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != corev1.TolerationOpExists) {
		return false
	}
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	if ss.Effect == corev1.TaintEffectNoExecute && ss.TolerationSeconds != nil &&
		(t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds) {
		return false
	}
	switch ss.Operator {
	case corev1.TolerationOpEqual, "":
		return t.Operator == corev1.TolerationOpEqual && t.Value == ss.Value
	case corev1.TolerationOpExists:
		return true
	}
	return false
}
