package webhook

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// recordingObserver keeps what it is told, as label strings.
type recordingObserver struct {
	mu         sync.Mutex
	calls      []string
	rejections []string
}

func (r *recordingObserver) ObserveWebhook(name, step, op string, rejected bool, code int, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf("%s %s %s rejected=%t code=%d", name, step, op, rejected, code))
}

func (r *recordingObserver) ObserveWebhookRejection(name, step, op, errorType string, code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rejections = append(r.rejections, fmt.Sprintf("%s %s %s %s code=%d", name, step, op, errorType, code))
}

// TestObserveOutcomes pins upstream's classification of a call for the
// apiserver_admission_webhook_* families.
func TestObserveOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mutating  bool
		spec      hookSpec
		call      string
		rejection string
	}{
		{"allowed", false, hookSpec{path: "/allow"}, "w validating CREATE rejected=false code=200", ""},
		{"denied", false, hookSpec{path: "/deny-403"}, "w validating CREATE rejected=true code=403", "w validating CREATE no_error code=403"},
		{"unreachable, Fail", false, hookSpec{url: "https://127.0.0.1:1/x"}, "w validating CREATE rejected=true code=503", "w validating CREATE calling_webhook_error code=503"},
		{"unreachable, Ignore", false, hookSpec{url: "https://127.0.0.1:1/x", failure: admissionregistrationv1.Ignore}, "w validating CREATE rejected=false code=503", ""},
		{"mutating allowed", true, hookSpec{path: "/label"}, "w admit CREATE rejected=false code=200", ""},
		{"mutating denied", true, hookSpec{path: "/deny"}, "w admit CREATE rejected=true code=400", "w admit CREATE no_error code=400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordingObserver{}
			f := newFixtureWith(t, func(o *Options) { o.Metrics = rec })
			tc.spec.name = "w"
			a := createAttrs(configMap("cm", nil))
			if tc.mutating {
				f.addMutating("cfg", tc.spec)
				_ = f.mut.Admit(context.Background(), a)
			} else {
				f.addValidating("cfg", tc.spec)
				_ = f.val.Validate(context.Background(), a)
			}
			if !slices.Equal(rec.calls, []string{tc.call}) {
				t.Errorf("calls %q, want %q", rec.calls, tc.call)
			}
			var want []string
			if tc.rejection != "" {
				want = []string{tc.rejection}
			}
			if !slices.Equal(rec.rejections, want) {
				t.Errorf("rejections %q, want %q", rec.rejections, want)
			}
		})
	}
}
