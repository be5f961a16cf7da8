package podsecurity

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

type warnings []string

func (w *warnings) AddWarning(_, text string) { *w = append(*w, text) }

// request runs the plugin with a warning recorder and an audit record and
// returns what it answered.
func request(p *Plugin, a *admission.Attributes) (err error, warns []string, annotations map[string]string) {
	var w warnings
	rec := audit.NewRecord(audit.RequestAuditConfig{Level: auditv1.LevelMetadata}, nil, auditv1.Event{})
	ctx := audit.WithRecord(warning.WithRecorder(context.Background(), &w), rec)
	err = p.Validate(ctx, a)
	rec.Update(func(e *auditv1.Event) { annotations = e.Annotations })
	return err, w, annotations
}

func namespaces(nss ...*corev1.Namespace) func(context.Context, string) (*corev1.Namespace, error) {
	return func(_ context.Context, name string) (*corev1.Namespace, error) {
		for _, ns := range nss {
			if ns.Name == name {
				return ns, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
}

func ns(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

var (
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	namespacesGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	barePod        = func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}}
	}
	restrictedMessage = `allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
		`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
		`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
		`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
)

func TestPods(t *testing.T) {
	cfg, err := ParseConfig([]byte(`apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
exemptions: {usernames: [ci-bot], namespaces: [exempt], runtimeClasses: [kata]}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{Config: cfg, GetNamespace: namespaces(
		ns("enforced", map[string]string{EnforceLevelLabel: "restricted"}),
		ns("warned", map[string]string{WarnLevelLabel: "baseline", AuditLevelLabel: "restricted", AuditVersionLabel: "v1.30"}),
		ns("open", nil),
		ns("exempt", map[string]string{EnforceLevelLabel: "restricted"}),
	)})
	privileged := barePod("x")
	privileged.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	tests := []struct {
		name        string
		attrs       admission.Attributes
		err         string
		warnings    []string
		annotations map[string]string
	}{
		{name: "restricted namespace refuses a bare pod",
			attrs:       admission.Attributes{Name: "x", Namespace: "enforced", Resource: podsGVR, Operation: admission.Create, Object: barePod("x")},
			err:         `pods "x" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedMessage,
			annotations: map[string]string{AnnotationEnforcePolicy: "restricted:latest"}},
		{name: "warn and audit",
			attrs:    admission.Attributes{Name: "x", Namespace: "warned", Resource: podsGVR, Operation: admission.Create, Object: privileged},
			warnings: []string{`would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`},
			annotations: map[string]string{
				AnnotationEnforcePolicy:   "privileged:latest",
				AnnotationAuditViolations: `would violate PodSecurity "restricted:v1.30": privileged (container "c" must not set securityContext.privileged=true), ` + restrictedMessage,
			}},
		{name: "unlabelled namespace is privileged",
			attrs:       admission.Attributes{Name: "x", Namespace: "open", Resource: podsGVR, Operation: admission.Create, Object: privileged},
			annotations: map[string]string{AnnotationEnforcePolicy: "privileged:latest"}},
		{name: "exempt namespace",
			attrs:       admission.Attributes{Name: "x", Namespace: "exempt", Resource: podsGVR, Operation: admission.Create, Object: barePod("x")},
			annotations: map[string]string{AnnotationExempt: "namespace"}},
		{name: "exempt user",
			attrs:       admission.Attributes{Name: "x", Namespace: "enforced", Resource: podsGVR, Operation: admission.Create, Object: barePod("x"), UserInfo: &user.DefaultInfo{Name: "ci-bot"}},
			annotations: map[string]string{AnnotationExempt: "user"}},
		{name: "exempt runtime class",
			attrs: admission.Attributes{Name: "x", Namespace: "enforced", Resource: podsGVR, Operation: admission.Create, Object: func() *corev1.Pod {
				p := barePod("x")
				p.Spec.RuntimeClassName = ptr.To("kata")
				return p
			}()},
			annotations: map[string]string{AnnotationExempt: "runtimeClass"}},
		{name: "update that changes no image",
			attrs: admission.Attributes{Name: "x", Namespace: "enforced", Resource: podsGVR, Operation: admission.Update, Object: barePod("x"), OldObject: barePod("x")}},
		{name: "update that changes an image",
			attrs: admission.Attributes{Name: "x", Namespace: "enforced", Resource: podsGVR, Operation: admission.Update, Object: barePod("x"), OldObject: func() *corev1.Pod {
				p := barePod("x")
				p.Spec.Containers[0].Image = "old"
				return p
			}()},
			err:         `pods "x" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedMessage,
			annotations: map[string]string{AnnotationEnforcePolicy: "restricted:latest"}},
		{name: "status is ignored",
			attrs: admission.Attributes{Name: "x", Namespace: "enforced", Resource: podsGVR, Subresource: "status", Operation: admission.Update, Object: barePod("x"), OldObject: barePod("x")}},
		{name: "missing namespace",
			attrs:       admission.Attributes{Name: "x", Namespace: "gone", Resource: podsGVR, Operation: admission.Create, Object: barePod("x")},
			err:         `Internal error occurred: failed to lookup namespace "gone"`,
			annotations: map[string]string{AnnotationError: `Internal error occurred: failed to lookup namespace "gone": namespaces "gone" not found`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err, warns, annotations := request(p, &tt.attrs)
			if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
			}
			if err != nil && tt.attrs.Namespace == "enforced" && !apierrors.IsForbidden(err) {
				t.Errorf("not a 403: %v", err)
			}
			if d := cmp.Diff(tt.warnings, []string(warns)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.annotations, annotations); d != "" {
				t.Errorf("audit annotations (-want +got):\n%s", d)
			}
		})
	}
}

// TestWorkloadsWarn: a Deployment's template is never refused, only
// warned about and audited.
func TestWorkloadsWarn(t *testing.T) {
	p := New(Options{GetNamespace: namespaces(ns("enforced", map[string]string{EnforceLevelLabel: "restricted"}))})
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "enforced"}}
	d.Spec.Template.Spec = barePod("").Spec
	err, warns, _ := request(p, &admission.Attributes{Name: "d", Namespace: "enforced", Resource: deploymentsGVR, Operation: admission.Create, Object: d})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`would violate PodSecurity "restricted:latest": ` + restrictedMessage}
	if d := cmp.Diff(want, []string(warns)); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

func TestNamespaces(t *testing.T) {
	var pods []*corev1.Pod
	for i := range 3 {
		pods = append(pods, barePod(fmt.Sprintf("p%d", i)))
	}
	priv := barePod("priv")
	priv.Spec.HostNetwork = true
	pods = append(pods, priv)
	cfg, _ := ParseConfig([]byte("apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\nexemptions: {namespaces: [kube-system]}\n"))
	p := New(Options{Config: cfg, ListPods: func(context.Context, string) ([]*corev1.Pod, error) { return pods, nil }})
	tests := []struct {
		name     string
		op       admission.Operation
		obj, old *corev1.Namespace
		err      string
		warnings []string
	}{
		{name: "bad label on create", op: admission.Create, obj: ns("ns", map[string]string{EnforceLevelLabel: "strict"}),
			err: `Namespace "ns" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`},
		{name: "tightened to baseline", op: admission.Update, obj: ns("ns", map[string]string{EnforceLevelLabel: "baseline"}), old: ns("ns", nil),
			warnings: []string{`existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"`, `priv: host namespaces`}},
		{name: "tightened to restricted", op: admission.Update, obj: ns("ns", map[string]string{EnforceLevelLabel: "restricted"}), old: ns("ns", map[string]string{EnforceLevelLabel: "baseline"}),
			warnings: []string{
				`existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"`,
				`p0 (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile`,
				`priv: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile`,
			}},
		{name: "loosened", op: admission.Update, obj: ns("ns", map[string]string{EnforceLevelLabel: "baseline"}), old: ns("ns", map[string]string{EnforceLevelLabel: "restricted"})},
		{name: "exempt namespace labelled", op: admission.Create, obj: ns("kube-system", map[string]string{EnforceLevelLabel: "restricted"}),
			warnings: []string{`namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Name: tt.obj.Name, Resource: namespacesGVR, Operation: tt.op, Object: tt.obj}
			if tt.old != nil {
				a.OldObject = tt.old
			}
			err, warns, _ := request(p, a)
			if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
			}
			if d := cmp.Diff(tt.warnings, []string(warns)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}
