package audit

import (
	"context"
	"slices"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// Record is the audit event of one request in flight. The audit filter
// creates it; later filters and handlers add to it through the context
// (AddAnnotation, LogImpersonatedUser). Its methods are safe for concurrent
// use and do nothing on a nil Record, so callers need not know whether the
// request is audited.
type Record struct {
	mu      sync.Mutex
	config  RequestAuditConfig
	backend Backend
	event   auditv1.Event
}

// NewRecord returns the record of a request audited per config, whose
// stages go to backend. event carries what is known when the request
// arrives; its level is set from config.
func NewRecord(config RequestAuditConfig, backend Backend, event auditv1.Event) *Record {
	event.Level = config.Level
	event.TypeMeta = metav1.TypeMeta{APIVersion: auditv1.SchemeGroupVersion.String(), Kind: "Event"}
	return &Record{config: config, backend: backend, event: event}
}

type recordKey struct{}

// WithRecord returns a context carrying r.
func WithRecord(ctx context.Context, r *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, r)
}

// RecordFrom returns the record in ctx, nil when the request is not audited.
func RecordFrom(ctx context.Context) *Record {
	r, _ := ctx.Value(recordKey{}).(*Record)
	return r
}

// Config returns the policy's answer for the request.
func (r *Record) Config() RequestAuditConfig {
	if r == nil {
		return RequestAuditConfig{Level: auditv1.LevelNone}
	}
	return r.config
}

// Update calls f with the event, under the record's lock.
func (r *Record) Update(f func(*auditv1.Event)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.event)
}

// ProcessStage sends the event at stage, stamped now, unless the policy
// omits that stage. It reports false when the backend failed.
func (r *Record) ProcessStage(stage Stage, now time.Time) bool {
	if r == nil || r.backend == nil || slices.Contains(r.config.OmitStages, stage) {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.event.Stage = stage
	if stage == auditv1.StageRequestReceived {
		r.event.StageTimestamp = r.event.RequestReceivedTimestamp
	} else {
		r.event.StageTimestamp = metav1.NewMicroTime(now)
	}
	return r.backend.ProcessEvents(&r.event)
}

// AddAnnotation records key=value on the request's audit event. The first
// value set for a key stays; it is a no-op for unaudited requests.
func AddAnnotation(ctx context.Context, key, value string) {
	RecordFrom(ctx).Update(func(e *auditv1.Event) {
		if _, set := e.Annotations[key]; set {
			return
		}
		if e.Annotations == nil {
			e.Annotations = map[string]string{}
		}
		e.Annotations[key] = value
	})
}

// LogImpersonatedUser records the user a request acts as.
func LogImpersonatedUser(ctx context.Context, u user.Info) {
	RecordFrom(ctx).Update(func(e *auditv1.Event) {
		if e.Level.Less(auditv1.LevelMetadata) {
			return
		}
		info := UserInfo(u)
		e.ImpersonatedUser = &info
	})
}

// UserInfo converts u to the wire form events carry.
func UserInfo(u user.Info) authnv1.UserInfo {
	if u == nil {
		return authnv1.UserInfo{}
	}
	info := authnv1.UserInfo{
		Username: u.GetName(),
		UID:      u.GetUID(),
		Groups:   slices.Clone(u.GetGroups()),
	}
	if extra := u.GetExtra(); len(extra) > 0 {
		info.Extra = make(map[string]authnv1.ExtraValue, len(extra))
		for k, v := range extra {
			info.Extra[k] = slices.Clone(v)
		}
	}
	return info
}
