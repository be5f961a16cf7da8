package policy

import (
	"context"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestNative checks that expressions see a typed object exactly as they
// would see its unstructured (JSON) form.
func TestNative(t *testing.T) {
	replicas := int32(3)
	maxSurge := intstr.FromString("25%")
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}, CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "c", Image: "nginx",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
			}}}},
		},
	}
	env, err := Env(EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{
		"object.spec.replicas == 3",
		"object.apiVersion == 'apps/v1' && object.kind == 'Deployment'",
		"object.metadata.name == 'web' && object.metadata.labels.app == 'web'",
		"!has(object.metadata.namespace)",
		"!has(object.spec.paused)",
		"has(object.spec.template.spec.containers)",
		"object.spec.template.spec.containers[0].resources.limits.cpu == '500m'",
		"object.spec.strategy.rollingUpdate.maxSurge == '25%'",
		"object.metadata.creationTimestamp == '2026-01-02T03:04:05Z'",
		"object.spec.template.spec.containers.all(c, c.image == 'nginx')",
		"object.spec.template.spec.containers.size() == 1",
		"'replicas' in object.spec",
		"object.metadata.labels == {'app': 'web'}",
		"object.spec.selector == null",
	}
	in := &Input{Object: NativeObject(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	for _, src := range exprs {
		x := Compile(env, src, cel.BoolType)
		if x.Err != nil {
			t.Errorf("%s: %v", src, x.Err)
			continue
		}
		v, err := NewEvaluation(in, nil, RuntimeCELCostBudget).Eval(context.Background(), x)
		if err != nil || v != types.True {
			t.Errorf("%s = %v, %v; want true", src, v, err)
		}
	}
}
