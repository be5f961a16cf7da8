package ipallocator

import (
	"net/netip"
	"testing"
)

func TestRange(t *testing.T) {
	tests := []struct {
		prefix         string
		first, last    string
		usable, static uint64
		in, out        []string
	}{
		{"10.0.0.0/24", "10.0.0.1", "10.0.0.254", 254, 16, []string{"10.0.0.1", "10.0.0.254"}, []string{"10.0.0.0", "10.0.0.255", "10.0.1.1"}},
		{"10.0.0.0/28", "10.0.0.1", "10.0.0.14", 14, 0, []string{"10.0.0.14"}, []string{"10.0.0.15"}},
		{"10.96.0.0/12", "10.96.0.1", "10.111.255.254", 1<<20 - 2, 256, []string{"10.100.0.0"}, []string{"10.112.0.0"}},
		{"fd00::/120", "fd00::1", "fd00::fe", 254, 16, []string{"fd00::fe"}, []string{"fd00::ff", "fd00::"}},
	}
	for _, tt := range tests {
		a, err := New(netip.MustParsePrefix(tt.prefix), nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.First().String() != tt.first || a.last.String() != tt.last || a.Usable() != tt.usable || a.staticBand != tt.static {
			t.Errorf("%s: first %s last %s usable %d static %d", tt.prefix, a.First(), a.last, a.Usable(), a.staticBand)
		}
		for _, ip := range tt.in {
			if !a.Contains(netip.MustParseAddr(ip)) {
				t.Errorf("%s should contain %s", tt.prefix, ip)
			}
		}
		for _, ip := range tt.out {
			if a.Contains(netip.MustParseAddr(ip)) {
				t.Errorf("%s should not contain %s", tt.prefix, ip)
			}
		}
	}
	if _, err := New(netip.MustParsePrefix("10.0.0.0/31"), nil); err == nil {
		t.Error("a /31 was accepted")
	}
}

func TestAddOffset(t *testing.T) {
	tests := []struct {
		ip   string
		off  uint64
		want string
	}{
		{"10.0.0.1", 0, "10.0.0.1"},
		{"10.0.0.255", 1, "10.0.1.0"},
		{"10.0.0.1", 1 << 16, "10.1.0.1"},
		{"fd00::ffff:ffff:ffff:ffff", 1, "fd00:0:0:1::"},
	}
	for _, tt := range tests {
		if got := addOffset(netip.MustParseAddr(tt.ip), tt.off).String(); got != tt.want {
			t.Errorf("%s + %d = %s, want %s", tt.ip, tt.off, got, tt.want)
		}
	}
}
