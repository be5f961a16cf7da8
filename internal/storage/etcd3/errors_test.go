package etcd3

import (
	"errors"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Clients read etcd's words, never gRPC's framing; the cause stays
// reachable.
func TestTranslateKeepsEtcdWords(t *testing.T) {
	plain := errors.New("boom")
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"gRPC status", status.Error(codes.ResourceExhausted, "trying to send message larger than max (3 vs. 2)"),
			"trying to send message larger than max (3 vs. 2)"},
		{"etcd server error over gRPC", rpctypes.ErrGRPCRequestTooLarge, "etcdserver: request is too large"},
		{"etcd client error", rpctypes.ErrRequestTooLarge, "etcdserver: request is too large"},
		{"anything else", plain, "boom"},
	}
	for _, tc := range cases {
		got := translate(tc.err, "/k")
		if got.Error() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got.Error(), tc.want)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("%s: the cause is lost", tc.name)
		}
	}
}
