package quota

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
)

// ignored are never quota-ed: virtual resources that are not stored, and
// events, as upstream.
var ignored = map[schema.GroupResource]bool{
	{Resource: "bindings"}:                                                 true,
	{Resource: "componentstatuses"}:                                        true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
	{Resource: "events"}:                         true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// Ignored reports whether quota never counts gr.
func Ignored(gr schema.GroupResource) bool { return ignored[gr] }

// legacyAliases are the names older quotas use to count some core objects.
var legacyAliases = map[string]corev1.ResourceName{
	"configmaps":             corev1.ResourceConfigMaps,
	"resourcequotas":         corev1.ResourceQuotas,
	"replicationcontrollers": corev1.ResourceReplicationControllers,
	"secrets":                corev1.ResourceSecrets,
}

// Registry holds an evaluator per resource; resources without a special
// one get an object counter on first use, so `count/<resource>.<group>`
// works for every resource, custom ones included.
type Registry struct {
	mu         sync.RWMutex
	evaluators map[schema.GroupResource]Evaluator
}

// NewRegistry returns the evaluators of pods, services, claims and the
// core objects with legacy names.
func NewRegistry(c clock.PassiveClock) *Registry {
	r := &Registry{evaluators: map[schema.GroupResource]Evaluator{}}
	for _, e := range []Evaluator{NewPodEvaluator(c), NewServiceEvaluator(), NewPersistentVolumeClaimEvaluator()} {
		r.evaluators[e.GroupResource()] = e
	}
	for res, alias := range legacyAliases {
		gr := schema.GroupResource{Resource: res}
		r.evaluators[gr] = NewObjectCountEvaluator(gr, alias)
	}
	return r
}

// Get returns gr's evaluator, creating an object counter if it has none.
func (r *Registry) Get(gr schema.GroupResource) Evaluator {
	r.mu.RLock()
	e, ok := r.evaluators[gr]
	r.mu.RUnlock()
	if ok {
		return e
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.evaluators[gr]; ok {
		return e
	}
	e = NewObjectCountEvaluator(gr, "")
	r.evaluators[gr] = e
	return e
}

// All lists the evaluators known so far: the special ones, those of the
// legacy names and the object counters created since.
func (r *Registry) All() []Evaluator {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Evaluator, 0, len(r.evaluators))
	for _, e := range r.evaluators {
		out = append(out, e)
	}
	return out
}

// ResourcesOf lists the resources whose usage a quota naming hard must
// measure: those of the known evaluators that match, and the resource of
// every count/<resource>.<group> name.
func (r *Registry) ResourcesOf(hard []corev1.ResourceName) map[schema.GroupResource]Evaluator {
	out := map[schema.GroupResource]Evaluator{}
	for _, e := range r.All() {
		if len(e.MatchingResources(hard)) > 0 {
			out[e.GroupResource()] = e
		}
	}
	for _, n := range hard {
		if gr, ok := ParseCountResourceName(n); ok && !Ignored(gr) {
			if _, done := out[gr]; !done {
				out[gr] = r.Get(gr)
			}
		}
	}
	return out
}
