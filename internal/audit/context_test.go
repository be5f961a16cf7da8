package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/internal/auth/user"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// recorder is a Backend keeping copies of what it gets.
type recorder struct {
	events []*auditv1.Event
	fail   bool
}

func (r *recorder) ProcessEvents(events ...*auditv1.Event) bool {
	for _, e := range events {
		r.events = append(r.events, e.DeepCopy())
	}
	return !r.fail
}
func (r *recorder) Run(<-chan struct{}) error { return nil }
func (r *recorder) Shutdown()                 {}

func TestRecordStagesAndAnnotations(t *testing.T) {
	b := &recorder{}
	received := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	ev := auditv1.Event{AuditID: "id-1"}
	ev.RequestReceivedTimestamp.Time = received
	rec := NewRecord(RequestAuditConfig{Level: auditv1.LevelMetadata, OmitStages: []Stage{auditv1.StageResponseStarted}}, b, ev)
	ctx := WithRecord(context.Background(), rec)

	AddAnnotation(ctx, "k", "first")
	AddAnnotation(ctx, "k", "second")
	LogImpersonatedUser(ctx, &user.DefaultInfo{Name: "bob", Groups: []string{"g"}, Extra: map[string][]string{"x": {"1"}}})
	later := received.Add(time.Second)
	for _, s := range []Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted, auditv1.StageResponseComplete} {
		if !rec.ProcessStage(s, later) {
			t.Fatalf("ProcessStage(%s) = false", s)
		}
	}
	if len(b.events) != 2 {
		t.Fatalf("got %d events, want 2 (ResponseStarted omitted)", len(b.events))
	}
	first, last := b.events[0], b.events[1]
	if first.Stage != auditv1.StageRequestReceived || !first.StageTimestamp.Time.Equal(received) {
		t.Errorf("first event stage %s at %v, want RequestReceived at the receive time", first.Stage, first.StageTimestamp)
	}
	if last.Stage != auditv1.StageResponseComplete || !last.StageTimestamp.Time.Equal(later) {
		t.Errorf("last event stage %s at %v, want ResponseComplete at %v", last.Stage, last.StageTimestamp, later)
	}
	if last.Kind != "Event" || last.APIVersion != "audit.k8s.io/v1" || last.Level != auditv1.LevelMetadata {
		t.Errorf("event type/level = %s %s %s", last.Kind, last.APIVersion, last.Level)
	}
	if got := last.Annotations["k"]; got != "first" {
		t.Errorf("annotation k = %q, want the first value", got)
	}
	wantUser := &authnv1.UserInfo{Username: "bob", Groups: []string{"g"}, Extra: map[string]authnv1.ExtraValue{"x": {"1"}}}
	if diff := cmp.Diff(wantUser, last.ImpersonatedUser); diff != "" {
		t.Errorf("impersonatedUser (-want +got):\n%s", diff)
	}

	b.fail = true
	if rec.ProcessStage(auditv1.StagePanic, later) {
		t.Error("ProcessStage reported success for a failing backend")
	}
}

func TestNoRecordIsHarmless(t *testing.T) {
	ctx := context.Background()
	AddAnnotation(ctx, "k", "v")
	LogImpersonatedUser(ctx, &user.DefaultInfo{Name: "x"})
	var r *Record
	if !r.ProcessStage(auditv1.StageResponseComplete, time.Now()) {
		t.Error("nil record failed a stage")
	}
	if r.Config().Level != auditv1.LevelNone {
		t.Error("nil record has a level")
	}
}

func TestUnion(t *testing.T) {
	a, b := &recorder{}, &recorder{fail: true}
	u := Union(a, b)
	if u.ProcessEvents(&auditv1.Event{AuditID: "1"}) {
		t.Error("union succeeded though one backend failed")
	}
	if len(a.events) != 1 || len(b.events) != 1 {
		t.Errorf("backends got %d and %d events, want 1 each", len(a.events), len(b.events))
	}
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(s))
	w.Close()
	return buf.Bytes()
}

// proto encodes obj as a client-go clientset sends it.
func proto(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBodyObject(t *testing.T) {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}, Data: map[string]string{"k": "v"}}
	list := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, Items: []corev1.ConfigMap{*cm}}
	withMF := `{"kind":"ConfigMap","metadata":{"name":"a","managedFields":[{"manager":"m"}]},"data":{"n":12345678901234567890}}`
	tests := []struct {
		name, contentType, encoding string
		body                        []byte
		omit                        bool
		want                        string // "" for nil
	}{
		{"json", "application/json", "", []byte(`{"a": 1}`), false, `{"a":1}`},
		{"json with charset", "application/json; charset=utf-8", "", []byte(`{"a":1}`), false, `{"a":1}`},
		{"merge patch", "application/merge-patch+json", "", []byte(`{"a":null}`), false, `{"a":null}`},
		{"no content type", "", "", []byte(`[1]`), false, `[1]`},
		{"apply yaml", "application/apply-patch+yaml", "", []byte("a: 1\n"), false, `{"a":1}`},
		{"protobuf", "application/vnd.kubernetes.protobuf", "", proto(t, cm), false,
			`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","managedFields":[{"manager":"m"}]},"data":{"k":"v"}}`},
		{"protobuf list without managed fields", "application/vnd.kubernetes.protobuf", "", proto(t, list), true,
			`{"apiVersion":"v1","items":[{"data":{"k":"v"},"metadata":{"name":"c"}}],"kind":"ConfigMapList","metadata":{}}`},
		{"protobuf garbage", "application/vnd.kubernetes.protobuf", "", []byte("k8s\x00..."), false, ""},
		{"cbor", "application/cbor", "", []byte{0xa0}, false, ""},
		{"malformed json", "application/json", "", []byte(`{"a":`), false, ""},
		{"bad media type", "a/b;;", "", []byte(`{}`), false, ""},
		{"empty", "application/json", "", nil, false, ""},
		{"too big", "application/json", "", []byte(`"` + strings.Repeat("x", MaxBodyBytes) + `"`), false, ""},
		{"gzip", "application/json", "gzip", gz(t, `{"a":1}`), false, `{"a":1}`},
		{"broken gzip", "application/json", "gzip", []byte("nope"), false, ""},
		{"other encoding", "application/json", "br", []byte(`{}`), false, ""},
		{"managed fields kept", "application/json", "", []byte(withMF), false,
			`{"kind":"ConfigMap","metadata":{"name":"a","managedFields":[{"manager":"m"}]},"data":{"n":12345678901234567890}}`},
		{"managed fields dropped", "application/json", "", []byte(withMF), true,
			`{"data":{"n":12345678901234567890},"kind":"ConfigMap","metadata":{"name":"a"}}`},
		{"list items", "application/json", "", []byte(`{"items":[{"metadata":{"managedFields":[],"name":"x"}}]}`), true,
			`{"items":[{"metadata":{"name":"x"}}]}`},
		{"table rows", "application/json", "", []byte(`{"rows":[{"object":{"metadata":{"managedFields":[],"name":"x"}}}]}`), true,
			`{"rows":[{"object":{"metadata":{"name":"x"}}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BodyObject(tt.contentType, tt.encoding, tt.body, tt.omit)
			if tt.want == "" {
				if got != nil {
					t.Errorf("got %q, want nil", got.Raw)
				}
				return
			}
			if got == nil {
				t.Fatalf("got nil, want %s", tt.want)
			}
			if string(got.Raw) != tt.want || got.ContentType != "application/json" {
				t.Errorf("got %s (%s), want %s", got.Raw, got.ContentType, tt.want)
			}
		})
	}
}

func TestStatusFrom(t *testing.T) {
	s := StatusFrom("application/json", []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"m","reason":"NotFound","code":404}`))
	if s == nil || s.Code != 404 || s.Reason != "NotFound" || s.Message != "m" {
		t.Errorf("StatusFrom = %+v", s)
	}
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonConflict}
	if s := StatusFrom("application/vnd.kubernetes.protobuf", proto(t, st)); s == nil || s.Code != 409 || s.Reason != metav1.StatusReasonConflict {
		t.Errorf("StatusFrom(protobuf) = %+v", s)
	}
	if s := StatusFrom("application/json", []byte(`{"kind":"Pod"}`)); s != nil {
		t.Errorf("a Pod is not a Status: %+v", s)
	}
	if s := StatusFrom("text/plain", []byte(`{"kind":"Status"}`)); s != nil {
		t.Errorf("text is not a Status: %+v", s)
	}
}
