package controlplane

import (
	"slices"
	"strings"
	"testing"
)

// TestAdmissionPluginOrder pins that kapi's plugins run in upstream's
// order and that the defaults are upstream's (plus NodeRestriction).
func TestAdmissionPluginOrder(t *testing.T) {
	last := -1
	for _, p := range AdmissionPlugins {
		i := slices.Index(UpstreamAdmissionPlugins, p)
		if i <= last {
			t.Fatalf("%s is out of upstream's order in %v", p, AdmissionPlugins)
		}
		last = i
	}
	for _, p := range []string{"NamespaceLifecycle", "NodeRestriction", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"} {
		if !slices.Contains(DefaultAdmissionPlugins, p) {
			t.Errorf("%s is not on by default: %v", p, DefaultAdmissionPlugins)
		}
	}
	if slices.Index(AdmissionPlugins, "MutatingAdmissionWebhook") > slices.Index(AdmissionPlugins, "ValidatingAdmissionWebhook") {
		t.Error("mutating webhooks must come before validating ones")
	}
}

func TestEnabledAdmissionPlugins(t *testing.T) {
	for _, tc := range []struct {
		name            string
		enable, disable []string
		without         []string
		wantErr         string
	}{
		{"defaults", nil, nil, nil, ""},
		{"disable implemented", nil, []string{"ValidatingAdmissionWebhook"}, []string{"ValidatingAdmissionWebhook"}, ""},
		{"disable one kapi lacks", nil, []string{"ImagePolicyWebhook"}, nil, ""},
		{"enable one kapi lacks", []string{"ImagePolicyWebhook"}, nil, nil, `admission plugin "ImagePolicyWebhook" is not implemented by kapi`},
		{"unknown", nil, []string{"Nope"}, nil, `--disable-admission-plugins plugin "Nope" is unknown`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := enabledAdmissionPlugins(SecurityConfig{EnableAdmissionPlugins: tc.enable, DisableAdmissionPlugins: tc.disable})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range DefaultAdmissionPlugins {
				if slices.Contains(got, p) == slices.Contains(tc.without, p) {
					t.Errorf("%s enabled = %v in %v", p, slices.Contains(got, p), got)
				}
			}
		})
	}
}
