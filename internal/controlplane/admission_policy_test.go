package controlplane

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

type recordedWarnings struct {
	mu   sync.Mutex
	list []string
}

func (r *recordedWarnings) HandleWarningHeader(_ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, text)
}

func (r *recordedWarnings) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.list
	r.list = nil
	return l
}

func policyDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

// TestValidatingAdmissionPolicy binds one policy with a custom parameter
// kind twice: with Deny in one namespace (a Deployment of more replicas
// than the parameter allows is refused with upstream's message and code)
// and with Warn in another (it is created, with upstream's Warning).
func TestValidatingAdmissionPolicy(t *testing.T) {
	s := startServer(t, "memory")
	warnings := &recordedWarnings{}
	cfg := rest.CopyConfig(s.restCfg)
	cfg.WarningHandler = warnings
	cs := kubernetes.NewForConfigOrDie(cfg)
	dc := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()

	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "replicalimits.example.com"},
		"spec": map[string]any{
			"group": "example.com",
			"scope": "Namespaced",
			"names": map[string]any{"plural": "replicalimits", "singular": "replicalimit", "kind": "ReplicaLimit", "listKind": "ReplicaLimitList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "properties": map[string]any{"maxReplicas": map[string]any{"type": "integer"}},
				}},
			}},
		},
	}}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dc.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	limits := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "replicalimits"}
	limit := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "ReplicaLimit",
		"metadata":    map[string]any{"name": "limit"},
		"maxReplicas": int64(5),
	}}
	poll(t, "replica limit created", func(ctx context.Context) (bool, error) {
		_, err := dc.Resource(limits).Namespace("default").Create(ctx, limit, metav1.CreateOptions{})
		return err == nil, err
	})
	for _, ns := range []string{"denied", "warned"} {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"replica-limit": ns}}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	vap := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-limit"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "ReplicaLimit"},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression:        "object.spec.replicas <= params.maxReplicas",
				MessageExpression: "'replicas must be no greater than ' + string(params.maxReplicas)",
			}},
		},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, vap, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deny := admissionregistrationv1.DenyAction
	for ns, action := range map[string]admissionregistrationv1.ValidationAction{"denied": admissionregistrationv1.Deny, "warned": admissionregistrationv1.Warn} {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "replica-limit-" + ns},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        "replica-limit",
				ParamRef:          &admissionregistrationv1.ParamRef{Name: "limit", Namespace: "default", ParameterNotFoundAction: &deny},
				ValidationActions: []admissionregistrationv1.ValidationAction{action},
				MatchResources: &admissionregistrationv1.MatchResources{
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"replica-limit": ns}},
				},
			},
		}
		if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// the plugin sees policies through informers: wait until it enforces
	const wantDeny = `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-denied' denied request: replicas must be no greater than 5`
	var denyErr error
	poll(t, "policy enforced", func(ctx context.Context) (bool, error) {
		_, denyErr = cs.AppsV1().Deployments("denied").Create(ctx, policyDeployment("big", 6), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return denyErr != nil, nil
	})
	if denyErr.Error() != wantDeny {
		t.Fatalf("error = %q, want %q", denyErr, wantDeny)
	}
	if status, ok := denyErr.(apierrors.APIStatus); !ok || status.Status().Code != 422 || status.Status().Reason != metav1.StatusReasonInvalid {
		t.Fatalf("status = %+v, want 422 Invalid", denyErr)
	}
	if _, err := cs.AppsV1().Deployments("denied").Create(ctx, policyDeployment("small", 5), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a deployment within the limit: %v", err)
	}

	warnings.take()
	if _, err := cs.AppsV1().Deployments("warned").Create(ctx, policyDeployment("big", 6), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a warned deployment: %v", err)
	}
	const wantWarn = "Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warned': replicas must be no greater than 5"
	if got := warnings.take(); len(got) != 1 || got[0] != wantWarn {
		t.Fatalf("warnings = %q, want %q", got, wantWarn)
	}

	// the status controller type-checks each generation
	poll(t, "status of replica-limit", func(ctx context.Context) (bool, error) {
		p, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "replica-limit", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.Status.ObservedGeneration == p.Generation && p.Status.TypeChecking != nil && len(p.Status.TypeChecking.ExpressionWarnings) == 0, nil
	})
	typo := vap.DeepCopy()
	typo.Name = "typo"
	typo.Spec.Validations[0].Expression = "object.spec.replicaz <= params.maxReplicas"
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, typo, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got *admissionregistrationv1.ValidatingAdmissionPolicy
	poll(t, "status of typo", func(ctx context.Context) (bool, error) {
		var err error
		got, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "typo", metav1.GetOptions{})
		return err == nil && got.Status.ObservedGeneration == got.Generation, err
	})
	if tc := got.Status.TypeChecking; tc == nil || len(tc.ExpressionWarnings) != 1 ||
		tc.ExpressionWarnings[0].FieldRef != "spec.validations[0].expression" ||
		!strings.HasPrefix(tc.ExpressionWarnings[0].Warning, "apps/v1, Kind=Deployment: compilation failed: ERROR: <input>:1:12: undefined field 'replicaz'") {
		t.Fatalf("typeChecking = %+v, want one warning about replicaz", got.Status.TypeChecking)
	}

	// a policy stops applying once its binding goes
	if err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(ctx, "replica-limit-denied", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "binding removed", func(ctx context.Context) (bool, error) {
		_, err := cs.AppsV1().Deployments("denied").Create(ctx, policyDeployment("big", 6), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, nil
	})
}

// TestMutatingAdmissionPolicy: a policy bound to ConfigMaps sets a label
// with an apply configuration, keeping the labels the client sent.
func TestMutatingAdmissionPolicy(t *testing.T) {
	s := startServer(t, "memory")
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	ctx := context.Background()
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "add-label"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				},
			}}},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"policy.example.com/mutated": "true"}}}`},
			}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "add-label"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "add-label"},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got *corev1.ConfigMap
	i := 0
	poll(t, "label set", func(ctx context.Context) (bool, error) {
		i++
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{"app": "x"}}, Data: map[string]string{"k": "v"}}
		var err error
		got, err = cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
		return err == nil && got.Labels["policy.example.com/mutated"] == "true", err
	})
	if got.Labels["app"] != "x" || got.Data["k"] != "v" {
		t.Fatalf("configmap = %+v, want the client's fields kept", got)
	}
}
