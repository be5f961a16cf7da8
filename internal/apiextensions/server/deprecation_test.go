package server

import (
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestDeprecationWarning(t *testing.T) {
	custom := "use v2 please"
	v := func(name string, served, deprecated bool) apiextv1.CustomResourceDefinitionVersion {
		return apiextv1.CustomResourceDefinitionVersion{Name: name, Served: served, Deprecated: deprecated}
	}
	tests := []struct {
		name     string
		versions []apiextv1.CustomResourceDefinitionVersion
		v        apiextv1.CustomResourceDefinitionVersion
		want     string
	}{
		{"highest newer served", []apiextv1.CustomResourceDefinitionVersion{v("v1alpha1", true, true), v("v1beta1", true, false), v("v1", true, false), v("v2alpha1", true, false)},
			v("v1alpha1", true, true), "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget"},
		{"unserved and deprecated skipped", []apiextv1.CustomResourceDefinitionVersion{v("v1beta1", true, true), v("v1", false, false), v("v1beta2", true, true)},
			v("v1beta1", true, true), "example.com/v1beta1 Widget is deprecated"},
		{"older versions skipped", []apiextv1.CustomResourceDefinitionVersion{v("v1alpha1", true, false), v("v1", true, true)},
			v("v1", true, true), "example.com/v1 Widget is deprecated"},
		{"custom text", nil, apiextv1.CustomResourceDefinitionVersion{Name: "v1", Deprecated: true, DeprecationWarning: &custom}, custom},
	}
	for _, tt := range tests {
		spec := apiextv1.CustomResourceDefinitionSpec{Group: "example.com", Names: apiextv1.CustomResourceDefinitionNames{Kind: "Widget"}, Versions: tt.versions}
		if got := deprecationWarning(tt.v, spec); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDeprecatedVersionWarns(t *testing.T) {
	crd := realWidgetCRD(t)
	crd.Spec.Versions[1].Deprecated = true
	e := newRealEnv(t, envOptions{}, crd)
	want := `299 - "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget"`
	for _, path := range []string{"/apis/example.com/v1alpha1/namespaces/ns1/widgets", "/apis/example.com/v1alpha1/namespaces/ns1/widgets/missing"} {
		_, _, h := e.doH(t, "GET", path, "")
		if got := strings.Join(h.Values("Warning"), "\n"); got != want {
			t.Errorf("GET %s: Warning %q, want %q", path, got, want)
		}
	}
	if _, _, h := e.doH(t, "GET", "/apis/example.com/v1/namespaces/ns1/widgets", ""); len(h.Values("Warning")) != 0 {
		t.Errorf("served version warns: %q", h.Values("Warning"))
	}
	if _, disc := e.do(t, "GET", "/apis/example.com/v1alpha1", ""); !strings.Contains(disc, `"name":"widgets"`) {
		t.Errorf("deprecated version left discovery: %s", disc)
	}
}
