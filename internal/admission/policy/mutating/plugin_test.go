package mutating

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/apis/install"
)

func converters(t testing.TB) TypeConverters {
	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		t.Fatal(err)
	}
	schemas := policy.NewBuiltinSchemas(scheme)
	return func(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error) {
		if !scheme.Recognizes(gvk) {
			return nil, nil
		}
		return schemas.TypeConverter()
	}
}

func mapPolicy(name string, reinvoke admissionregistrationv1.ReinvocationPolicyType, muts ...admissionregistrationv1.Mutation) *admissionregistrationv1.MutatingAdmissionPolicy {
	return &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: k8stypes.UID("uid-" + name), Generation: 1},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps", "pods"}},
				},
			}}},
			Mutations:          muts,
			ReinvocationPolicy: reinvoke,
		},
	}
}

func mapBinding(policyName string) *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	return &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policyName + "-binding"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: policyName},
	}
}

func apply(expr string) admissionregistrationv1.Mutation {
	return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: expr}}
}

func patch(expr string) admissionregistrationv1.Mutation {
	return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: expr}}
}

func newTestPlugin(t testing.TB, objs ...runtime.Object) *Plugin {
	t.Helper()
	client := fake.NewSimpleClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	v1 := f.Admissionregistration().V1()
	p, err := New(v1.MutatingAdmissionPolicies(), v1.MutatingAdmissionPolicyBindings(), func(_ context.Context, name string) (*corev1.Namespace, error) {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
	}, nil, converters(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	return p
}

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		objs    []runtime.Object
		obj     runtime.Object
		check   func(t *testing.T, obj runtime.Object)
		wantErr string
	}{{
		name: "apply configuration sets a label",
		objs: []runtime.Object{mapPolicy("label", "", apply(`Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`)), mapBinding("label")},
		obj:  &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", Labels: map[string]string{"keep": "me"}}, Data: map[string]string{"a": "b"}},
		check: func(t *testing.T, obj runtime.Object) {
			cm := obj.(*corev1.ConfigMap)
			if cm.Labels["mutated"] != "yes" || cm.Labels["keep"] != "me" || cm.Data["a"] != "b" {
				t.Errorf("configmap = %+v", cm)
			}
		},
	}, {
		name: "apply configuration merges containers by name",
		objs: []runtime.Object{mapPolicy("pull", "", apply(`Object{spec: Object.spec{containers: [Object.spec.containers{name: "b", imagePullPolicy: "Always"}]}}`)), mapBinding("pull")},
		obj:  &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "x"}, {Name: "b", Image: "y"}}}},
		check: func(t *testing.T, obj runtime.Object) {
			c := obj.(*corev1.Pod).Spec.Containers
			if len(c) != 2 || c[0].Image != "x" || c[1].ImagePullPolicy != corev1.PullAlways || c[1].Image != "y" {
				t.Errorf("containers = %+v", c)
			}
		},
	}, {
		name: "json patch",
		objs: []runtime.Object{mapPolicy("annotate", "", patch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}, JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/by"), value: request.userInfo.username}]`)), mapBinding("annotate")},
		obj:  &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}},
		check: func(t *testing.T, obj runtime.Object) {
			if got := obj.(*corev1.ConfigMap).Annotations["example.com/by"]; got != "alice" {
				t.Errorf("annotation = %q", got)
			}
		},
	}, {
		name: "reinvocation sees a later change",
		objs: []runtime.Object{
			mapPolicy("a-copy", admissionregistrationv1.IfNeededReinvocationPolicy, apply(`Object{metadata: Object.metadata{labels: {"copy": has(object.metadata.labels) && "src" in object.metadata.labels ? object.metadata.labels["src"] : "none"}}}`)), mapBinding("a-copy"),
			mapPolicy("b-src", "", apply(`Object{metadata: Object.metadata{labels: {"src": "from-b"}}}`)), mapBinding("b-src"),
		},
		obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", Labels: map[string]string{}}},
		check: func(t *testing.T, obj runtime.Object) {
			if got := obj.(*corev1.ConfigMap).Labels; got["src"] != "from-b" || got["copy"] != "from-b" {
				t.Errorf("labels = %v", got)
			}
		},
	}, {
		name:    "evaluation error denies",
		objs:    []runtime.Object{mapPolicy("bad", "", apply(`Object{metadata: Object.metadata{labels: {"x": object.spec.nope}}}`)), mapBinding("bad")},
		obj:     &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}},
		wantErr: "policy 'bad' with binding 'bad-binding' denied request: expression 'Object{metadata: Object.metadata{labels: {\"x\": object.spec.nope}}}' resulted in error: no such key: spec",
	}, {
		name:    "wrong result type",
		objs:    []runtime.Object{mapPolicy("type", "", apply(`"x"`)), mapBinding("type")},
		obj:     &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}},
		wantErr: "compilation error: must evaluate to Object but got string",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPlugin(t, tt.objs...)
			a := &admission.Attributes{
				Name: "c", Namespace: "ns", Operation: admission.Create,
				Resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
				Kind:     corev1.SchemeGroupVersion.WithKind("ConfigMap"),
				Object:   tt.obj,
			}
			if _, ok := tt.obj.(*corev1.Pod); ok {
				a.Resource, a.Kind = corev1.SchemeGroupVersion.WithResource("pods"), corev1.SchemeGroupVersion.WithKind("Pod")
			}
			a.UserInfo = &userInfo{"alice"}
			err := p.Admit(context.Background(), a)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, a.Object)
		})
	}
}

type userInfo struct{ name string }

func (u *userInfo) GetName() string               { return u.name }
func (u *userInfo) GetUID() string                { return "" }
func (u *userInfo) GetGroups() []string           { return nil }
func (u *userInfo) GetExtra() map[string][]string { return nil }
