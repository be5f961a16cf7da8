package validation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func validPVC() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}},
			VolumeMode:  ptr.To(corev1.PersistentVolumeFilesystem),
		},
	}
}

func TestValidatePersistentVolumeClaim(t *testing.T) {
	pvc := func(mutate func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		c := validPVC()
		mutate(c)
		return c
	}
	tests := []struct {
		name string
		pvc  *corev1.PersistentVolumeClaim
		want []string
	}{
		{"valid", pvc(func(*corev1.PersistentVolumeClaim) {}), nil},
		{"no access modes", pvc(func(c *corev1.PersistentVolumeClaim) { c.Spec.AccessModes = nil }),
			[]string{"spec.accessModes: Required value: at least 1 access mode is required"}},
		{"no storage request", pvc(func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }),
			[]string{"spec.resources[storage]: Required value: "}},
		{"zero storage", pvc(func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests["storage"] = resource.MustParse("0") }),
			[]string{"spec.resources[storage]: Invalid value: must be greater than zero"}},
		{"data source kind", pvc(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "Snapshot", Name: "s"}
		}), []string{"spec.dataSource: Invalid value: must be 'PersistentVolumeClaim' when referencing the default apiGroup"}},
		{"data source mismatch", pvc(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "a"}
			c.Spec.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "b"}
		}), []string{"spec: Invalid value: must match dataSourceRef"}},
		{"selector", pvc(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Near"}}}
		}), []string{`spec.selector.matchExpressions[0].operator: Invalid value: not a valid selector operator`}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidatePersistentVolumeClaim(tt.pvc), tt.want)
	}
}

func TestValidatePersistentVolumeClaimUpdate(t *testing.T) {
	old := validPVC()
	old.ResourceVersion = "1"
	bound := old.DeepCopy()
	bound.Spec.VolumeName = "pv1"
	bound.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{"storage": resource.MustParse("1Gi")}}
	update := func(base *corev1.PersistentVolumeClaim, mutate func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		c := base.DeepCopy()
		mutate(c)
		return c
	}
	tests := []struct {
		name     string
		old, pvc *corev1.PersistentVolumeClaim
		want     string // field of the only error, "" for none
	}{
		{"bind volumeName", old, update(old, func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv1" }), ""},
		{"grow bound", bound, update(bound, func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests["storage"] = resource.MustParse("2Gi")
		}), ""},
		{"grow pending", old, update(old, func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests["storage"] = resource.MustParse("2Gi")
		}), "spec"},
		{"shrink bound", bound, update(bound, func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests["storage"] = resource.MustParse("512Mi")
		}), "spec.resources.requests.storage"},
		{"access modes", bound, update(bound, func(c *corev1.PersistentVolumeClaim) {
			c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
		}), "spec"},
		{"storage class from nil", old, update(old, func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = ptr.To("fast") }), ""},
	}
	for _, tt := range tests {
		errs := ValidatePersistentVolumeClaimUpdate(tt.pvc, tt.old)
		switch {
		case tt.want == "" && len(errs) != 0:
			t.Errorf("%s: unexpected %v", tt.name, errs)
		case tt.want != "" && (len(errs) != 1 || errs[0].Field != tt.want):
			t.Errorf("%s: errors %v, want one at %s", tt.name, errs, tt.want)
		case tt.want == "spec" && !strings.HasPrefix(errs[0].Detail, claimSpecImmutableMsg):
			t.Errorf("%s: detail %q", tt.name, errs[0].Detail)
		}
	}
}
