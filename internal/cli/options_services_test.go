package cli

import (
	"strings"
	"testing"
)

func TestParseServiceCIDR(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "10.0.0.0/24", want: "10.0.0.0/24"},
		{in: "fd00::/108", want: "fd00::/108"},
		{in: "10.0.0.1/24", err: "has host bits set; did you mean 10.0.0.0/24?"},
		{in: "10.0.0.0/8", err: "is too large; for 32-bit addresses, the mask must be >= 12"},
		{in: "10.0.0.0/31", err: "is too small"},
		{in: "nonsense", err: "--service-cluster-ip-range \"nonsense\" is not a valid CIDR"},
		{in: "10.0.0.0/24,fd00::/108", err: "dual-stack"},
	}
	for _, tt := range tests {
		got, err := parseServiceCIDR(tt.in)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
		case err != nil || got.String() != tt.want:
			t.Errorf("%s: %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestParsePortRange(t *testing.T) {
	tests := []struct {
		in         string
		base, size int
		err        bool
	}{
		{in: "30000-32767", base: 30000, size: 2768},
		{in: "30000+2767", base: 30000, size: 2768},
		{in: "8080", base: 8080, size: 1},
		{in: "32767-30000", err: true},
		{in: "0-10", err: true},
		{in: "1-70000", err: true},
		{in: "a-b", err: true},
		{in: "", err: true},
	}
	for _, tt := range tests {
		base, size, err := parsePortRange(tt.in)
		if (err != nil) != tt.err || (!tt.err && (base != tt.base || size != tt.size)) {
			t.Errorf("%q: %d %d %v", tt.in, base, size, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--service-node-port-range") {
			t.Errorf("%q: error does not name the flag: %v", tt.in, err)
		}
	}
}
