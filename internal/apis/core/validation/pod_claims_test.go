package validation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// Upstream's detail strings, from the same apimachinery helpers kapi and
// kube-apiserver both call.
var (
	dnsLabelMsg     = utilvalidation.IsDNS1123Label("Bad_Name")[0]
	dnsSubdomainMsg = resourceClaimNameErrs("Bad_Name", false)[0]
)

// claimPod is a valid pod that uses one existing claim and one template,
// its container taking one of them whole and a single request of the
// other.
func claimPod() *corev1.Pod {
	p := validPod()
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{
		{Name: "gpu", ResourceClaimName: ptr.To("shared-gpu")},
		{Name: "nic", ResourceClaimTemplateName: ptr.To("nic-template")},
	}
	p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}, {Name: "nic", Request: "port-1"}}
	return p
}

func TestValidatePodResourceClaims(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"valid", func(*corev1.Pod) {}, nil},
		{"name required", func(p *corev1.Pod) {
			p.Spec.ResourceClaims[0].Name = ""
			p.Spec.Containers[0].Resources.Claims = p.Spec.Containers[0].Resources.Claims[1:]
		}, []string{"spec.resourceClaims[0].name: Required value: "}},
		{"name not a DNS label", func(p *corev1.Pod) {
			p.Spec.ResourceClaims[0].Name = "Bad_Name"
			p.Spec.Containers[0].Resources.Claims = nil
		}, []string{"spec.resourceClaims[0].name: Invalid value: " + dnsLabelMsg}},
		{"duplicate name", func(p *corev1.Pod) { p.Spec.ResourceClaims[1].Name = "gpu" },
			[]string{
				"spec.resourceClaims[1].name: Duplicate value: ",
				"spec.containers[0].resources.claims[1]: Not found: must be one of the names in pod.spec.resourceClaims: gpu",
			}},
		{"both sources", func(p *corev1.Pod) { p.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To("t") },
			[]string{"spec.resourceClaims[0]: Invalid value: at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"}},
		{"no source", func(p *corev1.Pod) { p.Spec.ResourceClaims[0].ResourceClaimName = nil },
			[]string{"spec.resourceClaims[0]: Invalid value: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"}},
		{"bad claim name", func(p *corev1.Pod) { p.Spec.ResourceClaims[0].ResourceClaimName = ptr.To("Bad_Name") },
			[]string{"spec.resourceClaims[0].resourceClaimName: Invalid value: " + dnsSubdomainMsg}},
		{"bad template name", func(p *corev1.Pod) { p.Spec.ResourceClaims[1].ResourceClaimTemplateName = ptr.To("Bad_Name") },
			[]string{"spec.resourceClaims[1].resourceClaimTemplateName: Invalid value: " + dnsSubdomainMsg}},
		{"container claim unknown", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Claims[0].Name = "fpga" },
			[]string{"spec.containers[0].resources.claims[0]: Not found: must be one of the names in pod.spec.resourceClaims: gpu, nic"}},
		{"container claim without pod claims", func(p *corev1.Pod) { p.Spec.ResourceClaims = nil },
			[]string{
				"spec.containers[0].resources.claims[0]: Not found: must be one of the names in pod.spec.resourceClaims which is empty",
				"spec.containers[0].resources.claims[1]: Not found: must be one of the names in pod.spec.resourceClaims which is empty",
			}},
		{"container claim name required", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Claims[0].Name = "" },
			[]string{"spec.containers[0].resources.claims[0]: Required value: "}},
		{"container claim twice", func(p *corev1.Pod) {
			c := &p.Spec.Containers[0].Resources
			c.Claims = append(c.Claims, c.Claims[0])
		}, []string{"spec.containers[0].resources.claims[2]: Duplicate value: "}},
		{"container request twice", func(p *corev1.Pod) {
			c := &p.Spec.Containers[0].Resources
			c.Claims = append(c.Claims, c.Claims[1])
		}, []string{"spec.containers[0].resources.claims[2]: Duplicate value: "}},
		{"whole claim after one of its requests", func(p *corev1.Pod) {
			c := &p.Spec.Containers[0].Resources
			c.Claims = append(c.Claims, corev1.ResourceClaim{Name: "nic"})
		}, []string{"spec.containers[0].resources.claims[2]: Duplicate value: "}},
		{"request not a DNS label", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Claims[1].Request = "Bad_Name" },
			[]string{"spec.containers[0].resources.claims[1].request: Invalid value: " + dnsLabelMsg}},
		{"two containers share a claim", func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Name, c.Ports = "sidecar", nil
			p.Spec.Containers = append(p.Spec.Containers, c)
		}, nil},
		{"init container claim unknown", func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Name, c.Ports = "init", nil
			c.Resources.Claims = []corev1.ResourceClaim{{Name: "fpga"}}
			p.Spec.InitContainers = []corev1.Container{c}
		}, []string{"spec.initContainers[0].resources.claims[0]: Not found: must be one of the names in pod.spec.resourceClaims: gpu, nic"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := claimPod()
			tt.mutate(p)
			checkErrors(t, tt.name, ValidatePod(p), tt.want)
		})
	}
}

// TestValidatePodTemplateResourceClaims: the rules live in the pod spec,
// so workload templates get them too.
func TestValidatePodTemplateResourceClaims(t *testing.T) {
	p := claimPod()
	p.Spec.ResourceClaims[0].ResourceClaimName = nil
	tmpl := &corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}
	checkErrors(t, "template", ValidatePodTemplateSpec(tmpl, field.NewPath("spec", "template")), []string{
		"spec.template.spec.resourceClaims[0]: Invalid value: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
	})
}

// TestValidatePodUpdateResourceClaims: spec.resourceClaims and the
// containers' claims are not among the fields a pod update may change.
func TestValidatePodUpdateResourceClaims(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *corev1.Pod)
	}{
		{"add claim", func(p *corev1.Pod) {
			p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, corev1.PodResourceClaim{Name: "fpga", ResourceClaimName: ptr.To("f")})
		}},
		{"remove claim", func(p *corev1.Pod) {
			p.Spec.ResourceClaims = p.Spec.ResourceClaims[:1]
			p.Spec.Containers[0].Resources.Claims = p.Spec.Containers[0].Resources.Claims[:1]
		}},
		{"switch source", func(p *corev1.Pod) { p.Spec.ResourceClaims[0].ResourceClaimName = ptr.To("other") }},
		{"container drops claim", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Claims = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := claimPod()
			p := claimPod()
			tt.mutate(p)
			errs := ValidatePodUpdate(p, old)
			if len(errs) != 1 || errs[0].Field != "spec" || errs[0].Type != field.ErrorTypeForbidden ||
				!strings.HasPrefix(errs[0].Detail, "pod updates may not change fields other than ") {
				t.Fatalf("want one spec: Forbidden pod-update error, got %v", errs)
			}
		})
	}
	if errs := ValidatePodUpdate(claimPod(), claimPod()); len(errs) != 0 {
		t.Fatalf("unchanged claims refused: %v", errs)
	}
}

func TestValidatePodStatusUpdateResourceClaimStatuses(t *testing.T) {
	tests := []struct {
		name     string
		statuses []corev1.PodResourceClaimStatus
		want     []string
	}{
		{"none", nil, nil},
		{"generated name", []corev1.PodResourceClaimStatus{{Name: "nic", ResourceClaimName: ptr.To("p-nic-x7k2q")}}, nil},
		{"no claim needed", []corev1.PodResourceClaimStatus{{Name: "nic"}}, nil},
		{"unknown name", []corev1.PodResourceClaimStatus{{Name: "fpga", ResourceClaimName: ptr.To("p-fpga")}},
			[]string{"status.resourceClaimStatuses[0].name: Invalid value: must match the name of an entry in `spec.resourceClaims`"}},
		{"duplicate", []corev1.PodResourceClaimStatus{{Name: "nic", ResourceClaimName: ptr.To("a")}, {Name: "nic", ResourceClaimName: ptr.To("b")}},
			[]string{"status.resourceClaimStatuses[1].name: Duplicate value: "}},
		{"bad generated name", []corev1.PodResourceClaimStatus{{Name: "nic", ResourceClaimName: ptr.To("Bad_Name")}},
			[]string{"status.resourceClaimStatuses[0].name: Invalid value: " + dnsSubdomainMsg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := claimPod()
			p := claimPod()
			p.Status.ResourceClaimStatuses = tt.statuses
			checkErrors(t, tt.name, ValidatePodStatusUpdate(p, old), tt.want)
		})
	}
}
