package daemonset

import (
	"fmt"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// This file holds what is special to a DaemonSet's Pods: the default
// tolerations, the per-node affinity and the generation labels.

var dsKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

// Labels upstream puts on daemon Pods besides controller-revision-hash.
const (
	TemplateGenerationLabel      = "pod-template-generation"
	TemplateGenerationAnnotation = "deprecated.daemonset.template.generation"
)

// defaultTolerations are what upstream adds to every daemon Pod so node
// problems neither evict nor block it; network-unavailable only with
// hostNetwork.
func defaultTolerations(hostNetwork bool) []corev1.Toleration {
	t := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	if hostNetwork {
		t = append(t, corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return t
}

// addDefaultTolerations adds each default toleration, replacing one with
// the same key, operator, value and effect (as upstream's
// AddOrUpdateTolerationInPodSpec).
func addDefaultTolerations(spec *corev1.PodSpec) {
	for _, want := range defaultTolerations(spec.HostNetwork) {
		found := false
		for i, have := range spec.Tolerations {
			if have.Key == want.Key && have.Operator == want.Operator && have.Value == want.Value && have.Effect == want.Effect {
				found = true
				if !apiequality.Semantic.DeepEqual(have, want) {
					spec.Tolerations[i] = want
				}
			}
		}
		if !found {
			spec.Tolerations = append(spec.Tolerations, want)
		}
	}
}

// templateGeneration reads the generation the apiserver keeps in the
// deprecated annotation; nil when absent or unparsable.
func templateGeneration(ds *appsv1.DaemonSet) *int64 {
	v, ok := ds.Annotations[TemplateGenerationAnnotation]
	if !ok {
		return nil
	}
	g, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil
	}
	return &g
}

// podForNode is the Pod created for node: the template with the default
// tolerations, the generation and hash labels, and its required node
// affinity replaced by a metadata.name match on node, so the scheduler
// binds it there (upstream no longer sets nodeName itself).
func podForNode(ds *appsv1.DaemonSet, hash, node string) (*corev1.Pod, error) {
	t := ds.Spec.Template.DeepCopy()
	addDefaultTolerations(&t.Spec)
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	if g := templateGeneration(ds); g != nil {
		t.Labels[TemplateGenerationLabel] = fmt.Sprint(*g)
	}
	if hash != "" {
		t.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	}
	t.Spec.Affinity = nodeNameAffinity(t.Spec.Affinity, node)
	pod, err := podcontrol.PodFromTemplate(t, ds, podcontrol.NewControllerRef(ds, metav1.GroupVersionKind(dsKind)))
	if err != nil {
		return nil, err
	}
	pod.Namespace = ds.Namespace
	return pod, nil
}

// nodeNameAffinity replaces the required node selector terms with one
// matching the node's metadata.name, keeping everything else.
func nodeNameAffinity(a *corev1.Affinity, node string) *corev1.Affinity {
	term := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{
		Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}
	if a == nil {
		a = &corev1.Affinity{}
	}
	if a.NodeAffinity == nil {
		a.NodeAffinity = &corev1.NodeAffinity{}
	}
	a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
	return a
}

// targetNode is the node a daemon Pod is for: its nodeName once bound,
// else the metadata.name its required affinity names.
func targetNode(pod *corev1.Pod) string {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == metav1.ObjectNameField && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// isUpdated: the Pod carries the current hash or template generation.
func isUpdated(pod *corev1.Pod, hash string, gen *int64) bool {
	return (hash != "" && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash) ||
		(gen != nil && pod.Labels[TemplateGenerationLabel] == fmt.Sprint(*gen))
}

// sortPods puts bound Pods first, then the oldest, then by name.
func sortPods(pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if (a.Spec.NodeName != "") != (b.Spec.NodeName != "") {
			return a.Spec.NodeName != ""
		}
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
}
