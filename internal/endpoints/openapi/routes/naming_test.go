package routes

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestGroupNaming(t *testing.T) {
	tests := []struct {
		group, version string
		idPart, tag    string
		prefix         string
	}{
		{"", "v1", "CoreV1", "core_v1", "/api/v1"},
		{"apps", "v1", "AppsV1", "apps_v1", "/apis/apps/v1"},
		{"rbac.authorization.k8s.io", "v1", "RbacAuthorizationV1", "rbacAuthorization_v1", "/apis/rbac.authorization.k8s.io/v1"},
		{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowcontrolApiserverV1beta3", "flowcontrolApiserver_v1beta3", "/apis/flowcontrol.apiserver.k8s.io/v1beta3"},
		{"admissionregistration.k8s.io", "v1alpha1", "AdmissionregistrationV1alpha1", "admissionregistration_v1alpha1", "/apis/admissionregistration.k8s.io/v1alpha1"},
		// Outside k8s.io the whole group is kept; dashes and dots start
		// a capital, a leading digit is dropped.
		{"stable.example.com", "v1", "StableExampleComV1", "stableExampleCom_v1", "/apis/stable.example.com/v1"},
		{"my-group.example.com", "v2", "MyGroupExampleComV2", "myGroupExampleCom_v2", "/apis/my-group.example.com/v2"},
		{"3scale.net", "v1", "ScaleNetV1", "ScaleNet_v1", "/apis/3scale.net/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.group+"/"+tt.version, func(t *testing.T) {
			b := newBuilder(schema.GroupVersion{Group: tt.group, Version: tt.version}, nil)
			if b.idPart != tt.idPart || b.tag != tt.tag || b.prefix != tt.prefix {
				t.Errorf("id part %q, tag %q, prefix %q; want %q, %q, %q", b.idPart, b.tag, b.prefix, tt.idPart, tt.tag, tt.prefix)
			}
		})
	}
}

func TestDescriptions(t *testing.T) {
	tests := []struct{ got, want string }{
		{describer{kind: "Deployment"}.create(), "create a Deployment"},
		{describer{kind: "Ingress"}.create(), "create an Ingress"},
		{describer{kind: "EndpointSlice"}.delete(), "delete an EndpointSlice"},
		{describer{kind: "Endpoints"}.create(), "create Endpoints"},
		{describer{kind: "Pod", sub: "binding"}.create(), "create binding of a Pod"},
		{describer{kind: "Pod", sub: "eviction"}.create(), "create eviction of a Pod"},
		{describer{kind: "Deployment"}.list(true), "list or watch objects of kind Deployment"},
		{describer{kind: "ComponentStatus"}.list(false), "list objects of kind ComponentStatus"},
		{describer{kind: "Deployment", sub: "status"}.read(), "read status of the specified Deployment"},
		{describer{kind: "Deployment", sub: "scale"}.patch(), "partially update scale of the specified Deployment"},
		{describer{kind: "Namespace", sub: "finalize"}.replace(), "replace finalize of the specified Namespace"},
		{describer{kind: "Pod"}.deleteCollection(), "delete collection of Pod"},
		{describer{kind: "Pod", sub: "exec"}.connect("POST"), "connect POST requests to exec of Pod"},
		{describer{kind: "Pod"}.watch(), "watch changes to an object of kind Pod. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter."},
		{describer{kind: "Pod"}.watchList(), "watch individual changes to a list of Pod. deprecated: use the 'watch' parameter with a list operation instead."},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestQueryParams(t *testing.T) {
	names := func(ps []param) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.name+":"+p.typ)
		}
		return out
	}
	tests := []struct {
		name    string
		t       reflect.Type
		exclude []string
		want    []string
	}{
		{"patch", reflect.TypeFor[metav1.PatchOptions](), nil,
			[]string{"dryRun:string", "force:boolean", "fieldManager:string", "fieldValidation:string"}},
		{"delete", reflect.TypeFor[metav1.DeleteOptions](), nil,
			[]string{"gracePeriodSeconds:integer", "orphanDependents:boolean", "propagationPolicy:string", "dryRun:string", "ignoreStoreReadErrorWithClusterBreakingPotential:boolean"}},
		{"exec", reflect.TypeFor[corev1.PodExecOptions](), nil,
			[]string{"stdin:boolean", "stdout:boolean", "stderr:boolean", "tty:boolean", "container:string", "command:string"}},
		{"port forward", reflect.TypeFor[*corev1.PodPortForwardOptions](), nil, []string{"ports:integer"}},
		{"excluded", reflect.TypeFor[metav1.CreateOptions](), []string{"dryRun"}, []string{"fieldManager:string", "fieldValidation:string"}},
		{"none", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, names(queryParams(tt.t, tt.exclude...))); diff != "" {
				t.Errorf("parameters (-want +got):\n%s", diff)
			}
		})
	}
	for _, p := range listParams {
		if p.description == "" {
			t.Errorf("list parameter %s has no description", p.name)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	exec := withDefaults(connect("pods/exec", "PodExecOptions", true, "GET", "POST"))
	if exec.ConnectOptions != reflect.TypeFor[corev1.PodExecOptions]() || exec.ConnectSubpath {
		t.Errorf("pods/exec: options %v, subpath %v", exec.ConnectOptions, exec.ConnectSubpath)
	}
	proxy := withDefaults(connect("services/proxy", "ServiceProxyOptions", true, "GET"))
	if proxy.ConnectOptions != reflect.TypeFor[corev1.ServiceProxyOptions]() || !proxy.ConnectSubpath {
		t.Errorf("services/proxy: options %v, subpath %v", proxy.ConnectOptions, proxy.ConnectSubpath)
	}
	log := withDefaults(subresource(coreV1, "pods/log", true, []string{"get"}, coreV1.WithKind("Pod")))
	if log.GetOptions != reflect.TypeFor[corev1.PodLogOptions]() || !reflect.DeepEqual(log.GetProduces, []string{"text/plain"}) {
		t.Errorf("pods/log: options %v, produces %v", log.GetOptions, log.GetProduces)
	}
	// What the caller sets wins.
	own := connect("pods/exec", "PodExecOptions", true, "GET")
	own.ConnectOptions = reflect.TypeFor[corev1.PodAttachOptions]()
	if got := withDefaults(own).ConnectOptions; got != own.ConnectOptions {
		t.Errorf("explicit options replaced by %v", got)
	}
	plain := withDefaults(mainResource(appsV1, "deployments", "Deployment", true))
	if plain.GetOptions != nil || plain.ConnectOptions != nil || plain.GetProduces != nil {
		t.Errorf("deployments got options: %+v", plain)
	}
}
