package mutating

import (
	"context"
	"sort"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission/policy"
)

type hook struct {
	policy   *admissionregistrationv1.MutatingAdmissionPolicy
	compiled *compiled
	bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
}

// source keeps a snapshot of policies with their bindings, rebuilt on the
// first request after a change; compiled policies are kept by uid and
// generation.
type source struct {
	policies admissionregistrationlisters.MutatingAdmissionPolicyLister
	bindings admissionregistrationlisters.MutatingAdmissionPolicyBindingLister

	snapshot policy.Snapshot[hook]
	cache    map[string]*compiled
}

func newSource(pi admissionregistrationinformers.MutatingAdmissionPolicyInformer, bi admissionregistrationinformers.MutatingAdmissionPolicyBindingInformer) (*source, error) {
	s := &source{policies: pi.Lister(), bindings: bi.Lister(), cache: map[string]*compiled{}}
	s.snapshot.ReadyWait = 10 * time.Second
	if err := s.snapshot.Watch(pi.Informer(), bi.Informer()); err != nil {
		return nil, err
	}
	return s, nil
}

// hooks returns the current snapshot, rebuilt if a policy or binding
// changed.
func (s *source) hooks(ctx context.Context) ([]hook, error) {
	return s.snapshot.Get(ctx, s.build)
}

func (s *source) build() ([]hook, error) {
	policies, err := s.policies.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	bindings, err := s.bindings.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	byPolicy := map[string][]*admissionregistrationv1.MutatingAdmissionPolicyBinding{}
	for _, b := range bindings {
		byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
	}
	seen := map[string]bool{}
	var out []hook
	for _, p := range policies {
		bs := byPolicy[p.Name]
		if len(bs) == 0 {
			continue
		}
		sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
		uid := string(p.UID)
		seen[uid] = true
		c := s.cache[uid]
		if c == nil || c.generation != p.Generation {
			c = compile(p)
			s.cache[uid] = c
		}
		out = append(out, hook{policy: p, compiled: c, bindings: bs})
	}
	for uid := range s.cache {
		if !seen[uid] {
			delete(s.cache, uid)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].policy.Name < out[j].policy.Name })
	return out, nil
}
