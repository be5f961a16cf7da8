package filters

import (
	"net/http"
	"sync"
	"unicode/utf8"

	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// Upstream's limits: past 4096 runes of warnings in total, each warning is
// cut to 256 runes and warnings stop once the total is reached, so a chatty
// request cannot blow the header size limits of proxies and clients.
const (
	warningTruncateAtTotalRunes = 4 * 1024
	warningTruncateItemRunes    = 256
	warningCode                 = 299
)

// WithWarningRecorder gives each request a warning.Recorder. Warnings are
// deduplicated by text and written as `Warning: 299 - "text"` headers just
// before the status line; warnings added after that are dropped, since
// headers can no longer change. The recorder is safe to use from the
// goroutines a handler starts.
func WithWarningRecorder(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &warningRecorder{}
		hw := &hookWriter{ResponseWriter: w, beforeHeader: func() { rec.writeTo(w.Header()) }}
		next.ServeHTTP(hw, r.WithContext(warning.WithRecorder(r.Context(), rec)))
	})
}

type recordedWarning struct {
	agent, text string
}

type warningRecorder struct {
	mu       sync.Mutex
	sent     bool
	seen     map[string]bool
	warnings []recordedWarning
}

var _ warning.Recorder = (*warningRecorder)(nil)

// AddWarning implements warning.Recorder.
func (r *warningRecorder) AddWarning(agent, text string) {
	if text == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sent || r.seen[text] {
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[text] = true
	r.warnings = append(r.warnings, recordedWarning{agent, text})
}

// writeTo adds the Warning headers to h, once.
func (r *warningRecorder) writeTo(h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sent {
		return
	}
	r.sent = true
	for _, v := range warningHeaderValues(r.warnings) {
		h.Add("Warning", v)
	}
}

// warningHeaderValues formats warnings, truncating them as upstream does when
// their total length is over the limit. Warnings that cannot be encoded (an
// agent with spaces, control characters) are left out.
func warningHeaderValues(warnings []recordedWarning) []string {
	total := 0
	for _, w := range warnings {
		total += utf8.RuneCountInString(w.text)
	}
	truncating := total > warningTruncateAtTotalRunes
	var values []string
	written := 0
	for _, w := range warnings {
		text := w.text
		if truncating {
			if written >= warningTruncateAtTotalRunes {
				break
			}
			if utf8.RuneCountInString(text) > warningTruncateItemRunes {
				text = string([]rune(text)[:warningTruncateItemRunes])
			}
		}
		v, err := utilnet.NewWarningHeader(warningCode, w.agent, text)
		if err != nil {
			continue
		}
		written += utf8.RuneCountInString(text)
		values = append(values, v)
	}
	return values
}
