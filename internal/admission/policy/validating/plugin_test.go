package validating

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

type warnings []string

func (w *warnings) AddWarning(_, text string) { *w = append(*w, text) }

// paramSource serves ConfigMap-like params from a map by name.
type paramSource map[string]map[string]any

func (s paramSource) Store(_ context.Context, apiVersion, kind string) (policy.ParamStore, error) {
	if kind != "ReplicaLimit" {
		return nil, fmt.Errorf("no kind %s", kind)
	}
	return s, nil
}
func (s paramSource) Namespaced() bool { return false }
func (s paramSource) Get(_ context.Context, _, name string) (map[string]any, error) {
	if p, ok := s[name]; ok {
		return p, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "replicalimits"}, name)
}
func (s paramSource) List(_ context.Context, _ string, sel labels.Selector) ([]map[string]any, error) {
	var out []map[string]any
	for _, p := range s {
		l := map[string]string{}
		if md, ok := p["metadata"].(map[string]any); ok {
			if ls, ok := md["labels"].(map[string]any); ok {
				for k, v := range ls {
					l[k] = v.(string)
				}
			}
		}
		if sel.Matches(labels.Set(l)) {
			out = append(out, p)
		}
	}
	return out, nil
}

func deploymentRules() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
		},
	}}}
}

func vap(name string, mutate func(*admissionregistrationv1.ValidatingAdmissionPolicySpec)) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: k8stypes.UID("uid-" + name), Generation: 1},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: deploymentRules(),
			Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5"}},
		},
	}
	if mutate != nil {
		mutate(&p.Spec)
	}
	return p
}

func binding(name, policyName string, actions ...admissionregistrationv1.ValidationAction) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	if len(actions) == 0 {
		actions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
	}
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policyName, ValidationActions: actions},
	}
}

func deployment(replicas int32, lbls map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Labels: lbls},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas},
	}
}

func createAttrs(obj runtime.Object) *admission.Attributes {
	return &admission.Attributes{
		Name: "web", Namespace: "ns", Operation: admission.Create,
		Resource: appsv1.SchemeGroupVersion.WithResource("deployments"),
		Kind:     appsv1.SchemeGroupVersion.WithKind("Deployment"),
		Object:   obj,
		UserInfo: &user.DefaultInfo{Name: "alice", Groups: []string{"devs"}},
	}
}

func namespaces(_ context.Context, name string) (*corev1.Namespace, error) {
	if name != "ns" {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"env": "prod"}}}, nil
}

func newTestPlugin(t testing.TB, objs ...runtime.Object) *Plugin {
	t.Helper()
	client := fake.NewSimpleClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	v1 := f.Admissionregistration().V1()
	params := paramSource{
		"limit-3": {"apiVersion": "example.com/v1", "kind": "ReplicaLimit", "metadata": map[string]any{"name": "limit-3", "labels": map[string]any{"tier": "small"}}, "maxReplicas": int64(3)},
		"limit-8": {"apiVersion": "example.com/v1", "kind": "ReplicaLimit", "metadata": map[string]any{"name": "limit-8", "labels": map[string]any{"tier": "big"}}, "maxReplicas": int64(8)},
	}
	p, err := New(v1.ValidatingAdmissionPolicies(), v1.ValidatingAdmissionPolicyBindings(), namespaces, params)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	return p
}

func TestValidate(t *testing.T) {
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	forbidden := metav1.StatusReasonForbidden
	deny := admissionregistrationv1.DenyAction
	allow := admissionregistrationv1.AllowAction
	paramKind := &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "ReplicaLimit"}
	withParams := func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
		s.ParamKind = paramKind
		s.Validations = []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= params.maxReplicas", MessageExpression: "'at most ' + string(params.maxReplicas) + ' replicas'"}}
	}
	bindParams := func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, ref admissionregistrationv1.ParamRef) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		b.Spec.ParamRef = &ref
		return b
	}
	tests := []struct {
		name     string
		objs     []runtime.Object
		obj      runtime.Object
		wantErr  string
		wantCode int32
		wantWarn []string
	}{{
		name: "deny",
		objs: []runtime.Object{vap("p", nil), binding("b", "p")},
		obj:  deployment(6, nil), wantCode: 422,
		wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.spec.replicas <= 5`,
	}, {
		name: "allowed",
		objs: []runtime.Object{vap("p", nil), binding("b", "p")},
		obj:  deployment(5, nil),
	}, {
		name:     "warn",
		objs:     []runtime.Object{vap("p", nil), binding("b", "p", admissionregistrationv1.Warn)},
		obj:      deployment(6, nil),
		wantWarn: []string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: object.spec.replicas <= 5"},
	}, {
		name: "message and reason",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Message = "too many"
			s.Validations[0].Reason = &forbidden
		}), binding("b", "p")},
		obj: deployment(6, nil), wantCode: 403,
		wantErr: "denied request: too many",
	}, {
		name: "variables and request",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "r", Expression: "object.spec.replicas"}, {Name: "big", Expression: "variables.r > 5"}}
			s.Validations = []admissionregistrationv1.Validation{{Expression: "!variables.big || request.userInfo.username == 'admin'", MessageExpression: "request.userInfo.username + ' may not ask for ' + string(variables.r)"}}
		}), binding("b", "p")},
		obj:     deployment(7, nil),
		wantErr: "denied request: alice may not ask for 7",
	}, {
		name: "namespaceObject",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations = []admissionregistrationv1.Validation{{Expression: "namespaceObject.metadata.labels.env != 'prod'"}}
		}), binding("b", "p")},
		obj:     deployment(1, nil),
		wantErr: "failed expression: namespaceObject.metadata.labels.env != 'prod'",
	}, {
		name: "runtime error fails closed",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.FailurePolicy = &fail
			s.Validations = []admissionregistrationv1.Validation{{Expression: "object.spec.nope == 1"}}
		}), binding("b", "p")},
		obj:     deployment(1, nil),
		wantErr: "denied request: expression 'object.spec.nope == 1' resulted in error: no such key: nope",
	}, {
		name: "runtime error ignored",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.FailurePolicy = &ignore
			s.Validations = []admissionregistrationv1.Validation{{Expression: "object.spec.nope == 1"}}
		}), binding("b", "p")},
		obj: deployment(1, nil),
	}, {
		name: "compile error",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations = []admissionregistrationv1.Validation{{Expression: "object.spec.replicas"}}
		}), binding("b", "p")},
		obj:     deployment(1, nil),
		wantErr: "denied request: compilation error: must evaluate to bool but got dyn",
	}, {
		name: "matchConditions exclude",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "labelled", Expression: "'check' in object.metadata.labels"}}
		}), binding("b", "p")},
		obj: deployment(9, map[string]string{"other": "x"}),
	}, {
		name: "matchConditions include",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "labelled", Expression: "'check' in object.metadata.labels"}}
		}), binding("b", "p")},
		obj: deployment(9, map[string]string{"check": "x"}), wantErr: "failed expression",
	}, {
		name: "binding objectSelector narrows",
		objs: []runtime.Object{vap("p", nil), func() runtime.Object {
			b := binding("b", "p")
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"enforce": "yes"}}}
			return b
		}()},
		obj: deployment(9, nil),
	}, {
		name: "policy namespaceSelector",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}
		}), binding("b", "p")},
		obj: deployment(9, nil),
	}, {
		name: "params by name",
		objs: []runtime.Object{vap("p", withParams), bindParams(binding("b", "p"), admissionregistrationv1.ParamRef{Name: "limit-3", ParameterNotFoundAction: &deny})},
		obj:  deployment(4, nil), wantErr: "denied request: at most 3 replicas",
	}, {
		name: "params by selector, each param evaluated",
		objs: []runtime.Object{vap("p", withParams), bindParams(binding("b", "p"), admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: &deny})},
		obj:  deployment(9, nil), wantErr: "denied request: at most",
	}, {
		name:    "params not found, Deny",
		objs:    []runtime.Object{vap("p", withParams), bindParams(binding("b", "p"), admissionregistrationv1.ParamRef{Name: "missing", ParameterNotFoundAction: &deny})},
		obj:     deployment(1, nil),
		wantErr: "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
	}, {
		name: "params not found, Allow",
		objs: []runtime.Object{vap("p", withParams), bindParams(binding("b", "p"), admissionregistrationv1.ParamRef{Name: "missing", ParameterNotFoundAction: &allow})},
		obj:  deployment(100, nil),
	}, {
		name: "params kind unknown",
		objs: []runtime.Object{vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			withParams(s)
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Nope"}
		}), bindParams(binding("b", "p"), admissionregistrationv1.ParamRef{Name: "x", ParameterNotFoundAction: &deny})},
		obj:     deployment(1, nil),
		wantErr: "failed to configure binding: paramKind kind `example.com/v1, Kind=Nope` not known",
	}, {
		name: "no binding, no effect",
		objs: []runtime.Object{vap("p", nil)},
		obj:  deployment(100, nil),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPlugin(t, tt.objs...)
			var w warnings
			ctx := warning.WithRecorder(context.Background(), &w)
			err := p.Validate(ctx, createAttrs(tt.obj))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if tt.wantCode != 0 {
				if got := err.(*apierrors.StatusError).ErrStatus.Code; got != tt.wantCode {
					t.Errorf("code = %d, want %d", got, tt.wantCode)
				}
			}
			if fmt.Sprint([]string(w)) != fmt.Sprint(tt.wantWarn) {
				t.Errorf("warnings = %q, want %q", w, tt.wantWarn)
			}
		})
	}
}
