package etcd3

import (
	"context"
	"errors"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// DBSize returns the physically allocated size of the etcd database file,
// as the first of the client's members that answers reports it (members
// of one cluster hold the same data).
func DBSize(ctx context.Context, client *clientv3.Client) (int64, error) {
	var errs []error
	for _, ep := range client.Endpoints() {
		status, err := client.Status(ctx, ep)
		if err == nil {
			return status.DbSize, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		return 0, errors.New("etcd client has no endpoints")
	}
	return 0, errors.Join(errs...)
}
