// Package webhookbackend is the audit backend of --audit-webhook-config-file:
// events are buffered, gathered into batches and POSTed as an
// audit.k8s.io/v1 EventList to the server a kubeconfig file names, with
// retries, as kube-apiserver's webhook in batch mode does.
package webhookbackend

import (
	"fmt"
	"log/slog"
	"time"
)

// Upstream's defaults for the webhook in batch mode.
const (
	DefaultBufferSize     = 10000
	DefaultMaxBatchSize   = 400
	DefaultMaxBatchWait   = 30 * time.Second
	DefaultThrottleQPS    = 10
	DefaultThrottleBurst  = 15
	DefaultInitialBackoff = 10 * time.Second
)

// BatchOptions are the --audit-webhook-batch-* and
// --audit-webhook-initial-backoff settings.
type BatchOptions struct {
	// BufferSize is how many events wait to be sent before new ones are
	// dropped.
	BufferSize int
	// MaxBatchSize is the most events one POST carries.
	MaxBatchSize int
	// MaxBatchWait is the longest a smaller batch waits to fill.
	MaxBatchWait time.Duration
	// ThrottleEnable limits POSTs to ThrottleQPS, bursting to ThrottleBurst.
	ThrottleEnable bool
	ThrottleQPS    float32
	ThrottleBurst  int
	// InitialBackoff is the wait before the first retry of a failed POST;
	// each later one waits 1.5 times longer, up to 5 attempts in all.
	InitialBackoff time.Duration
	// Logger reports failed and dropped batches; nil discards.
	Logger *slog.Logger
}

// DefaultBatchOptions returns upstream's defaults.
func DefaultBatchOptions() BatchOptions {
	return BatchOptions{
		BufferSize:     DefaultBufferSize,
		MaxBatchSize:   DefaultMaxBatchSize,
		MaxBatchWait:   DefaultMaxBatchWait,
		ThrottleEnable: true,
		ThrottleQPS:    DefaultThrottleQPS,
		ThrottleBurst:  DefaultThrottleBurst,
		InitialBackoff: DefaultInitialBackoff,
	}
}

// Validate reports the first bad setting in upstream's words.
func (o BatchOptions) Validate() error {
	switch {
	case o.BufferSize <= 0:
		return fmt.Errorf("invalid audit batch webhook buffer size %v, must be a positive number", o.BufferSize)
	case o.MaxBatchSize <= 0:
		return fmt.Errorf("invalid audit batch webhook max batch size %v, must be a positive number", o.MaxBatchSize)
	case o.ThrottleEnable && o.ThrottleQPS <= 0:
		return fmt.Errorf("invalid audit batch webhook throttle QPS %v, must be a positive number", o.ThrottleQPS)
	case o.ThrottleEnable && o.ThrottleBurst <= 0:
		return fmt.Errorf("invalid audit batch webhook throttle burst %v, must be a positive number", o.ThrottleBurst)
	case o.MaxBatchWait <= 0:
		return fmt.Errorf("invalid audit batch webhook max wait %v, must be a positive duration", o.MaxBatchWait)
	case o.InitialBackoff < 0:
		return fmt.Errorf("invalid audit webhook initial backoff %v, must not be negative", o.InitialBackoff)
	}
	return nil
}
