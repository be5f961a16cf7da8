package alwayspullimages

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func pod(images ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	for _, img := range images {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: img, Image: img, ImagePullPolicy: corev1.PullIfNotPresent})
	}
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "init", ImagePullPolicy: corev1.PullNever}}
	return p
}

func TestAdmit(t *testing.T) {
	p := pod("a", "b")
	if err := (Plugin{}).Admit(context.Background(), &admission.Attributes{Name: "p", Resource: pods, Operation: admission.Create, Object: p}); err != nil {
		t.Fatal(err)
	}
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		if c.ImagePullPolicy != corev1.PullAlways {
			t.Errorf("%s: %s", c.Name, c.ImagePullPolicy)
		}
	}
	// An update with no new image is left alone.
	p = pod("a")
	if err := (Plugin{}).Admit(context.Background(), &admission.Attributes{Name: "p", Resource: pods, Operation: admission.Update, Object: p, OldObject: pod("a")}); err != nil {
		t.Fatal(err)
	}
	if p.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("update without a new image changed the policy")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		attrs admission.Attributes
		err   string
	}{
		{"one container", admission.Attributes{Name: "p", Resource: pods, Operation: admission.Create, Object: func() *corev1.Pod {
			p := pod("a")
			p.Spec.InitContainers[0].ImagePullPolicy = corev1.PullAlways
			return p
		}()}, `pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"`},
		{"new image on update", admission.Attributes{Name: "p", Resource: pods, Operation: admission.Update, Object: pod("b"), OldObject: pod("a")},
			`[pods "p" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"]`},
		{"same images on update", admission.Attributes{Name: "p", Resource: pods, Operation: admission.Update, Object: pod("a"), OldObject: pod("a")}, ""},
		{"status", admission.Attributes{Name: "p", Resource: pods, Subresource: "status", Operation: admission.Update, Object: pod("b"), OldObject: pod("a")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (Plugin{}).Validate(context.Background(), &tt.attrs)
			if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
			}
		})
	}
}
