package workload

import (
	"io"
	"net/http"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

// Clients are the connections a run uses: JSON for most calls, protobuf
// for list/protobuf, and a byte counter over both for the list phases.
type Clients struct {
	JSON     kubernetes.Interface
	Protobuf kubernetes.Interface
	Bytes    *ByteCounter
}

// NewClients builds the clients from cfg, which is not changed. The
// caller sets cfg's QPS and Burst: a bench must not be throttled by the
// client.
func NewClients(cfg *rest.Config) (*Clients, error) {
	counter := &ByteCounter{}
	jsonCfg := rest.CopyConfig(cfg)
	jsonCfg.Wrap(counter.Wrap)
	// Explicitly: client-go would otherwise ask for protobuf first.
	jsonCfg.ContentType = runtime.ContentTypeJSON
	jsonCfg.AcceptContentTypes = runtime.ContentTypeJSON
	jsonCS, err := kubernetes.NewForConfig(jsonCfg)
	if err != nil {
		return nil, err
	}
	pbCfg := rest.CopyConfig(jsonCfg)
	pbCfg.ContentType = runtime.ContentTypeProtobuf
	pbCfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	pbCS, err := kubernetes.NewForConfig(pbCfg)
	if err != nil {
		return nil, err
	}
	return &Clients{JSON: jsonCS, Protobuf: pbCS, Bytes: counter}, nil
}

// ByteCounter counts the bytes of response bodies read through the
// transports it wraps. Go's transport undoes gzip below the wrapper, so
// these are the bytes the client decodes.
type ByteCounter struct{ n atomic.Int64 }

var _ transport.WrapperFunc = (*ByteCounter)(nil).Wrap

// Wrap returns rt counting what is read from its response bodies.
func (c *ByteCounter) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if resp != nil && resp.Body != nil {
			resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.n}
		}
		return resp, err
	})
}

// Load returns the bytes counted so far.
func (c *ByteCounter) Load() int64 { return c.n.Load() }

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
