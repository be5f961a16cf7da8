package controlplane

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSetIdentityHeaders pins what the proxy tells an aggregated server:
// the client's credentials and any identity headers it sent are dropped;
// the authenticated user, groups and extras (keys path-escaped) are sent
// in upstream's front-proxy headers, the uid in X-Remote-Uid when there
// is one (kube-apiserver's RemoteRequestHeaderUID, on by default).
func TestSetIdentityHeaders(t *testing.T) {
	tests := []struct {
		name   string
		in     http.Header
		user   string
		uid    string
		groups []string
		extra  map[string][]string
		want   http.Header
	}{
		{
			name: "credentials and spoofed headers dropped",
			in: http.Header{
				"Authorization": {"Bearer x"}, "Impersonate-User": {"root"}, "X-Remote-User": {"root"},
				"X-Remote-Group": {"system:masters"}, "Accept": {"application/json"},
			},
			user: "alice", groups: []string{"dev", "system:authenticated"},
			want: http.Header{"Accept": {"application/json"}, "X-Remote-User": {"alice"}, "X-Remote-Group": {"dev", "system:authenticated"}},
		},
		{
			name: "uid sent, spoofed one dropped",
			in:   http.Header{"X-Remote-Uid": {"0"}},
			user: "carol", uid: "c-123",
			want: http.Header{"X-Remote-User": {"carol"}, "X-Remote-Uid": {"c-123"}},
		},
		{
			name: "extras path-escaped",
			in:   http.Header{},
			user: "bob", extra: map[string][]string{"example.com/scopes": {"a", "b"}},
			want: http.Header{"X-Remote-User": {"bob"}, http.CanonicalHeaderKey("X-Remote-Extra-example.com%2Fscopes"): {"a", "b"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.in.Clone()
			setIdentityHeaders(h, tt.user, tt.uid, tt.groups, tt.extra)
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
