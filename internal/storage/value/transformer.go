// Package value holds the Transformer interface that storage values pass
// through on their way to and from the KV (encryption at rest), and the
// prefix transformer that picks a transformer by the prefix a stored value
// carries. Its behaviour and byte layout follow k8s.io/apiserver's
// pkg/storage/value so that values move between kapi and kube-apiserver.
package value

import (
	"bytes"
	"context"
	"errors"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// Context is what a transformation may bind a value to besides its bytes.
type Context interface {
	// AuthenticatedData describes where the value lives (the storage layer
	// passes the full etcd key). An authenticating transformer refuses a
	// value read back under different authenticated data, so a value
	// cannot be copied to another key unnoticed.
	AuthenticatedData() []byte
}

// DefaultContext is a Context whose authenticated data is the bytes
// themselves.
type DefaultContext []byte

// AuthenticatedData returns c.
func (c DefaultContext) AuthenticatedData() []byte { return c }

// Transformer changes a value on its way to storage and undoes the change on
// the way back.
type Transformer interface {
	// TransformFromStorage returns the value as it was before
	// TransformToStorage. stale reports that the value was written with a
	// key or provider that is no longer the preferred one, so the caller
	// should rewrite it even when the object did not change.
	TransformFromStorage(ctx context.Context, data []byte, dataCtx Context) (out []byte, stale bool, err error)
	// TransformToStorage returns the form of data to store.
	TransformToStorage(ctx context.Context, data []byte, dataCtx Context) ([]byte, error)
}

// PrefixTransformer is a transformer together with the prefix that marks
// values it wrote.
type PrefixTransformer struct {
	Prefix      []byte
	Transformer Transformer
}

// errNoMatch is the default error for a value no transformer claims.
var errNoMatch = errors.New("the provided value does not match any of the supported transformers")

type prefixTransformers struct {
	transformers []PrefixTransformer
	err          error
}

// NewPrefixTransformers returns a transformer that writes with the first
// of transformers, prefixing the result with its prefix, and reads a value
// with the first transformer whose prefix the value has (stripping the
// prefix). A read by any but the first transformer is stale. A transformer
// with an empty prefix (identity) matches every value; when it fails, the
// next one is tried. err (nil: a generic message) is returned for a value
// that no transformer claims.
func NewPrefixTransformers(err error, transformers ...PrefixTransformer) Transformer {
	if err == nil {
		err = errNoMatch
	}
	return &prefixTransformers{transformers: transformers, err: err}
}

// TransformFromStorage reads data with the transformer its prefix names.
// Several transformers may share a prefix (the same provider listed twice
// with different keys while rotating), so a failure does not end the
// search; the failures are reported together when nothing succeeds.
func (t *prefixTransformers) TransformFromStorage(ctx context.Context, data []byte, dataCtx Context) ([]byte, bool, error) {
	var errs []error
	for i, pt := range t.transformers {
		if !bytes.HasPrefix(data, pt.Prefix) {
			continue
		}
		out, stale, err := pt.Transformer.TransformFromStorage(ctx, data[len(pt.Prefix):], dataCtx)
		if err != nil {
			// An empty prefix claims everything, so its refusal (identity
			// seeing encrypted data) only means "not mine".
			if len(pt.Prefix) > 0 {
				errs = append(errs, err)
			}
			continue
		}
		return out, stale || i != 0, nil
	}
	if err := utilerrors.Reduce(utilerrors.NewAggregate(errs)); err != nil {
		return nil, false, err
	}
	return nil, false, t.err
}

// TransformToStorage writes with the first transformer and prepends its
// prefix.
func (t *prefixTransformers) TransformToStorage(ctx context.Context, data []byte, dataCtx Context) ([]byte, error) {
	if len(t.transformers) == 0 {
		return nil, t.err
	}
	first := t.transformers[0]
	out, err := first.Transformer.TransformToStorage(ctx, data, dataCtx)
	if err != nil {
		return nil, err
	}
	prefixed := make([]byte, 0, len(first.Prefix)+len(out))
	prefixed = append(prefixed, first.Prefix...)
	return append(prefixed, out...), nil
}
