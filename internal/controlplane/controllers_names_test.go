package controlplane

import (
	"slices"
	"strings"
	"testing"
)

// TestEnabledControllers pins kube-controller-manager's --controllers
// syntax: "*" is every on-by-default controller, "name" or an alias
// enables, "-name" disables, the first mention wins, an empty list runs
// none; unknown names and enabling one kapi lacks are refused by name.
func TestEnabledControllers(t *testing.T) {
	all := ControllerNames()
	var onByDefault []string
	for _, n := range all {
		if !slices.Contains(kcmDisabledByDefault, n) {
			onByDefault = append(onByDefault, n)
		}
	}
	tests := []struct {
		name    string
		list    []string
		on      []string // enabled; nil with wantErr
		off     []string
		wantErr string
	}{
		{name: "default", list: nil, on: onByDefault, off: []string{"bootstrap-signer-controller", "token-cleaner-controller"}},
		{name: "star", list: []string{"*"}, on: onByDefault, off: []string{"bootstrap-signer-controller", "token-cleaner-controller"}},
		{name: "star and one off by default", list: []string{"*", "tokencleaner"}, on: append([]string{"token-cleaner-controller"}, onByDefault...), off: []string{"bootstrap-signer-controller"}},
		{name: "empty", list: []string{}, off: all},
		{name: "star minus one", list: []string{"*", "-serviceaccount-controller"}, on: []string{"namespace-controller"}, off: []string{"serviceaccount-controller"}},
		{name: "alias", list: []string{"serviceaccount", "csrsigning"}, on: []string{"serviceaccount-controller", "certificatesigningrequest-signing-controller"}, off: []string{"namespace-controller"}},
		{name: "disabling an alias", list: []string{"-root-ca-cert-publisher", "*"}, on: []string{"namespace-controller"}, off: []string{"root-ca-certificate-publisher-controller"}},
		{name: "first mention wins", list: []string{"namespace", "-namespace"}, on: []string{"namespace-controller"}},
		{name: "disabling one kapi lacks", list: []string{"*", "-node-ipam-controller"}, on: onByDefault},
		{name: "enabling one kapi lacks", list: []string{"nodeipam"}, wantErr: `"nodeipam" is not implemented by kapi`},
		{name: "unknown", list: []string{"*", "-nonsense"}, wantErr: `"nonsense" is not in the list of known controllers`},
		{name: "minus star", list: []string{"-*"}, wantErr: `"-*" is not in the list of known controllers`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := enabledControllers(tt.list)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.on {
				if !got[n] {
					t.Errorf("%s is off, want on", n)
				}
			}
			for _, n := range tt.off {
				if got[n] {
					t.Errorf("%s is on, want off", n)
				}
			}
		})
	}
}

// TestControllerNamesAreUpstream: every controller kapi runs has
// kube-controller-manager's name, so --controllers means the same in both.
func TestControllerNamesAreUpstream(t *testing.T) {
	for _, n := range ControllerNames() {
		if _, ok := kcmControllers[n]; !ok {
			t.Errorf("%s is not a kube-controller-manager controller name", n)
		}
	}
}
