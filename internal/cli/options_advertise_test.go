package cli

import (
	"errors"
	"net"
	"testing"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// TestAdvertiseAddressDefault: without --advertise-address kapi advertises
// what kube-apiserver would: the bind address, or the host's default-route
// address when the bind address is loopback or unspecified. Without such
// an address (no default route) the flag stays empty, as before.
func TestAdvertiseAddressDefault(t *testing.T) {
	hostIP := net.ParseIP("192.0.2.7")
	chooser := func(bind net.IP) (net.IP, error) {
		if bind.IsLoopback() || bind.IsUnspecified() {
			return hostIP, nil
		}
		return bind, nil
	}
	noRoute := func(net.IP) (net.IP, error) { return nil, errors.New("no default route") }
	tests := []struct {
		name      string
		bind      string
		advertise string
		resolve   func(net.IP) (net.IP, error)
		want      string
	}{
		{"loopback bind advertises the host address", "127.0.0.1", "", chooser, "192.0.2.7"},
		{"unspecified bind advertises the host address", "0.0.0.0", "", chooser, "192.0.2.7"},
		{"unspecified advertise address is defaulted", "127.0.0.1", "0.0.0.0", chooser, "192.0.2.7"},
		{"a routable bind address is advertised", "10.1.2.3", "", chooser, "10.1.2.3"},
		{"an explicit address wins", "127.0.0.1", "10.9.9.9", chooser, "10.9.9.9"},
		{"no default route keeps it empty", "127.0.0.1", "", noRoute, ""},
		{"a bad bind address is left to Validate", "nope", "", chooser, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewServeOptions()
			o.DataDir = t.TempDir()
			o.BindAddress, o.AdvertiseAddress = tt.bind, tt.advertise
			o.resolveBindAddress = tt.resolve
			if err := o.Complete(); err != nil {
				t.Fatal(err)
			}
			if o.AdvertiseAddress != tt.want {
				t.Fatalf("advertise address %q, want %q", o.AdvertiseAddress, tt.want)
			}
			c := o.Config()
			if tt.want == "" {
				if c.AdvertiseAddress != nil {
					t.Errorf("config advertise address %v, want none", c.AdvertiseAddress)
				}
			} else if !c.AdvertiseAddress.Equal(net.ParseIP(tt.want)) {
				t.Errorf("config advertise address %v, want %s", c.AdvertiseAddress, tt.want)
			}
			if !c.BindAddress.Equal(net.ParseIP(tt.bind)) {
				t.Errorf("bind address changed to %v", c.BindAddress)
			}
		})
	}
}

// TestAdvertiseAddressDefaultOnThisHost runs the real resolution: on a
// host with a default route the default is a routable address of this
// host; on one without, it stays empty.
func TestAdvertiseAddressDefaultOnThisHost(t *testing.T) {
	o := NewServeOptions()
	o.DataDir = t.TempDir()
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	host, err := utilnet.ResolveBindAddress(net.ParseIP("127.0.0.1"))
	if err != nil {
		if o.AdvertiseAddress != "" {
			t.Fatalf("no host interface (%v), yet advertise address %q", err, o.AdvertiseAddress)
		}
		return
	}
	if o.AdvertiseAddress != host.String() {
		t.Fatalf("advertise address %q, want the host's %s", o.AdvertiseAddress, host)
	}
	if ip := net.ParseIP(o.AdvertiseAddress); ip.IsLoopback() || ip.IsUnspecified() {
		t.Fatalf("advertise address %s is not routable", ip)
	}
}
