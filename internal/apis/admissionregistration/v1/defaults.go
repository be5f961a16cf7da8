package v1

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterDefaults adds the defaulting functions of the
// admissionregistration.k8s.io/v1 kinds, and of their lists, to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	addDefaults(scheme, &admissionregistrationv1.ValidatingWebhookConfiguration{}, &admissionregistrationv1.ValidatingWebhookConfigurationList{},
		SetDefaultsValidatingWebhookConfiguration, func(l *admissionregistrationv1.ValidatingWebhookConfigurationList) []admissionregistrationv1.ValidatingWebhookConfiguration {
			return l.Items
		})
	addDefaults(scheme, &admissionregistrationv1.MutatingWebhookConfiguration{}, &admissionregistrationv1.MutatingWebhookConfigurationList{},
		SetDefaultsMutatingWebhookConfiguration, func(l *admissionregistrationv1.MutatingWebhookConfigurationList) []admissionregistrationv1.MutatingWebhookConfiguration {
			return l.Items
		})
	addDefaults(scheme, &admissionregistrationv1.ValidatingAdmissionPolicy{}, &admissionregistrationv1.ValidatingAdmissionPolicyList{},
		SetDefaultsValidatingAdmissionPolicy, func(l *admissionregistrationv1.ValidatingAdmissionPolicyList) []admissionregistrationv1.ValidatingAdmissionPolicy {
			return l.Items
		})
	addDefaults(scheme, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{},
		SetDefaultsValidatingAdmissionPolicyBinding, func(l *admissionregistrationv1.ValidatingAdmissionPolicyBindingList) []admissionregistrationv1.ValidatingAdmissionPolicyBinding {
			return l.Items
		})
	addDefaults(scheme, &admissionregistrationv1.MutatingAdmissionPolicy{}, &admissionregistrationv1.MutatingAdmissionPolicyList{},
		SetDefaultsMutatingAdmissionPolicy, func(l *admissionregistrationv1.MutatingAdmissionPolicyList) []admissionregistrationv1.MutatingAdmissionPolicy {
			return l.Items
		})
	addDefaults(scheme, &admissionregistrationv1.MutatingAdmissionPolicyBinding{}, &admissionregistrationv1.MutatingAdmissionPolicyBindingList{},
		SetDefaultsMutatingAdmissionPolicyBinding, func(l *admissionregistrationv1.MutatingAdmissionPolicyBindingList) []admissionregistrationv1.MutatingAdmissionPolicyBinding {
			return l.Items
		})
	return nil
}

// addDefaults registers set for the kind T and for each item of its list
// L.
func addDefaults[T any, L runtime.Object](scheme *runtime.Scheme, obj runtime.Object, list L, set func(*T), items func(L) []T) {
	scheme.AddTypeDefaultingFunc(obj, func(o any) { set(o.(*T)) })
	scheme.AddTypeDefaultingFunc(list, func(o any) {
		its := items(o.(L))
		for i := range its {
			set(&its[i])
		}
	})
}

// SetDefaultsValidatingWebhookConfiguration defaults every webhook.
func SetDefaultsValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		setWebhookDefaults(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds)
		setClientConfigAndRuleDefaults(&w.ClientConfig, w.Rules)
	}
}

// SetDefaultsMutatingWebhookConfiguration defaults every webhook; mutating
// webhooks are also not reinvoked unless they ask.
func SetDefaultsMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		setWebhookDefaults(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds)
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptr.To(admissionregistrationv1.NeverReinvocationPolicy)
		}
		setClientConfigAndRuleDefaults(&w.ClientConfig, w.Rules)
	}
}

// setWebhookDefaults: failurePolicy Fail, matchPolicy Equivalent, empty
// (match-all) selectors, a 10 second timeout. sideEffects and
// admissionReviewVersions have no default in v1: they are required.
func setWebhookDefaults(failure **admissionregistrationv1.FailurePolicyType, match **admissionregistrationv1.MatchPolicyType,
	nsSelector, objSelector **metav1.LabelSelector, timeout **int32) {
	if *failure == nil {
		*failure = ptr.To(admissionregistrationv1.Fail)
	}
	if *match == nil {
		*match = ptr.To(admissionregistrationv1.Equivalent)
	}
	if *nsSelector == nil {
		*nsSelector = &metav1.LabelSelector{}
	}
	if *objSelector == nil {
		*objSelector = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptr.To[int32](10)
	}
}

// setClientConfigAndRuleDefaults gives a service reference port 443 and
// each rule scope "*".
func setClientConfigAndRuleDefaults(cc *admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations) {
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptr.To[int32](443)
	}
	for i := range rules {
		setRuleDefaults(&rules[i].Rule)
	}
}

func setRuleDefaults(r *admissionregistrationv1.Rule) {
	if r.Scope == nil {
		r.Scope = ptr.To(admissionregistrationv1.AllScopes)
	}
}

// SetDefaultsValidatingAdmissionPolicy: failurePolicy Fail and the match
// constraints' defaults.
func SetDefaultsValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	SetDefaultsMatchResources(p.Spec.MatchConstraints)
}

// SetDefaultsValidatingAdmissionPolicyBinding defaults the binding's match
// resources.
func SetDefaultsValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	SetDefaultsMatchResources(b.Spec.MatchResources)
}

// SetDefaultsMutatingAdmissionPolicy: failurePolicy Fail and the match
// constraints' defaults.
func SetDefaultsMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	SetDefaultsMatchResources(p.Spec.MatchConstraints)
}

// SetDefaultsMutatingAdmissionPolicyBinding defaults the binding's match
// resources.
func SetDefaultsMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	SetDefaultsMatchResources(b.Spec.MatchResources)
}

// SetDefaultsMatchResources (nil is left nil): matchPolicy Equivalent,
// empty selectors, and each rule's scope "*".
func SetDefaultsMatchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for i := range m.ResourceRules {
		setRuleDefaults(&m.ResourceRules[i].Rule)
	}
	for i := range m.ExcludeResourceRules {
		setRuleDefaults(&m.ExcludeResourceRules[i].Rule)
	}
}
