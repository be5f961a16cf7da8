package etcd3

import (
	"errors"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/status"
)

// etcdError is an etcd failure without a storage code. Its message is
// etcd's own description ("etcdserver: request timed out"), which is what
// kube-apiserver's clients read, never gRPC's framing ("rpc error: code =
// ... desc = ..."); the client's error stays reachable for errors.Is and
// logs.
type etcdError struct {
	msg string
	err error
}

func (e *etcdError) Error() string { return e.msg }
func (e *etcdError) Unwrap() error { return e.err }

// newEtcdError describes err in etcd's words.
func newEtcdError(err error) error {
	var ee rpctypes.EtcdError
	if errors.As(rpctypes.Error(err), &ee) {
		return &etcdError{msg: ee.Error(), err: err}
	}
	if st, ok := status.FromError(err); ok {
		return &etcdError{msg: st.Message(), err: err}
	}
	return &etcdError{msg: err.Error(), err: err}
}
