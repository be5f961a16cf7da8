package validating

import (
	"context"
	"syscall"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// BenchmarkValidateDeployment is what one ValidatingAdmissionPolicy with
// three validations adds to a Deployment create.
func BenchmarkValidateDeployment(b *testing.B) {
	p := newTestPlugin(b, vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
		s.Validations = []admissionregistrationv1.Validation{
			{Expression: "object.spec.replicas <= 5"},
			{Expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))"},
			{Expression: "has(object.metadata.labels) && 'app' in object.metadata.labels"},
		}
	}), binding("b", "p"))
	d := deployment(3, map[string]string{"app": "web"})
	d.Spec.Template.Spec.Containers = []corev1.Container{{
		Name: "web", Image: "registry.example.com/web:1.0",
		Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
		}},
	}}
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if err := p.Validate(ctx, createAttrs(d)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system time in nanoseconds: on a
// shared, loaded machine ns/op (wall time) mostly measures waiting, so
// the benchmarks also report the CPU time spent per operation.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkValidateNoMatch is the cost for a request no policy matches.
func BenchmarkValidateNoMatch(b *testing.B) {
	p := newTestPlugin(b, vap("p", nil), binding("b", "p"))
	a := createAttrs(&corev1.ConfigMap{})
	a.Resource = corev1.SchemeGroupVersion.WithResource("configmaps")
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if err := p.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
