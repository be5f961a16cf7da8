package eventratelimit

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

func event(ns, userName, source, object string) *admission.Attributes {
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: ns},
		Source:         corev1.EventSource{Component: source},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: object}}
	return &admission.Attributes{Namespace: ns, Operation: admission.Create, Object: ev,
		Resource: corev1.SchemeGroupVersion.WithResource("events"), Kind: corev1.SchemeGroupVersion.WithKind("Event"),
		UserInfo: &user.DefaultInfo{Name: userName}}
}

func TestValidate(t *testing.T) {
	type step struct {
		attrs   *admission.Attributes
		advance time.Duration
		message string
	}
	tests := []struct {
		name   string
		limits []Limit
		steps  []step
	}{
		{
			name:   "server burst then refill",
			limits: []Limit{{Type: ServerLimitType, QPS: 1, Burst: 2}},
			steps: []step{
				{attrs: event("a", "u", "s", "o")},
				{attrs: event("b", "v", "s", "o")},
				{attrs: event("c", "w", "s", "o"), message: "Too many requests: Too many requests: limit reached on type Server for key "},
				{attrs: event("c", "w", "s", "o"), advance: time.Second},
			},
		},
		{
			name:   "per namespace",
			limits: []Limit{{Type: NamespaceLimitType, QPS: 1, Burst: 1}},
			steps: []step{
				{attrs: event("a", "u", "s", "o")},
				{attrs: event("b", "u", "s", "o")},
				{attrs: event("a", "u", "s", "o"), message: "Too many requests: Too many requests: limit reached on type Namespace for key a"},
			},
		},
		{
			name:   "per user",
			limits: []Limit{{Type: UserLimitType, QPS: 1, Burst: 1}},
			steps: []step{
				{attrs: event("a", "alice", "s", "o")},
				{attrs: event("a", "bob", "s", "o")},
				{attrs: event("b", "alice", "s", "o"), message: "Too many requests: Too many requests: limit reached on type User for key alice"},
			},
		},
		{
			name:   "per source and object",
			limits: []Limit{{Type: SourceAndObjectLimitType, QPS: 1, Burst: 1}},
			steps: []step{
				{attrs: event("a", "u", "kubelet", "p1")},
				{attrs: event("a", "u", "kubelet", "p2")},
				{attrs: event("a", "u", "kubelet", "p1"), message: "Too many requests: Too many requests: limit reached on type SourceAndObject for key kubeletPodp1"},
			},
		},
		{
			name:   "every limit must accept",
			limits: []Limit{{Type: NamespaceLimitType, QPS: 1, Burst: 1}, {Type: UserLimitType, QPS: 1, Burst: 1}},
			steps: []step{
				{attrs: event("a", "u", "s", "o")},
				{attrs: event("a", "u", "s", "o"), message: "Too many requests: [Too many requests: limit reached on type Namespace for key a, Too many requests: limit reached on type User for key u]"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Now())
			p := New(&Configuration{Limits: tt.limits}, clk)
			for i, s := range tt.steps {
				clk.Step(s.advance)
				err := p.Validate(context.Background(), s.attrs)
				if s.message == "" {
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					continue
				}
				if !apierrors.IsTooManyRequests(err) || err.Error() != s.message {
					t.Fatalf("step %d: got %v, want 429 %s", i, err, s.message)
				}
			}
		})
	}
}

func TestIgnored(t *testing.T) {
	p := New(&Configuration{Limits: []Limit{{Type: ServerLimitType, QPS: 1, Burst: 1}}}, clocktesting.NewFakeClock(time.Now()))
	dry := event("a", "u", "s", "o")
	dry.DryRun = true
	cm := &admission.Attributes{Namespace: "a", Operation: admission.Create, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap")}
	for i := 0; i < 3; i++ {
		if err := p.Validate(context.Background(), dry); err != nil {
			t.Fatalf("dry run limited: %v", err)
		}
		if err := p.Validate(context.Background(), cm); err != nil {
			t.Fatalf("configmap limited: %v", err)
		}
	}
}

func TestLoadConfiguration(t *testing.T) {
	tests := []struct {
		name, data, wantErr string
	}{
		{name: "none", data: "", wantErr: "limits: Invalid value: null: must not be empty"},
		{name: "valid", data: "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Namespace\n  qps: 50\n  burst: 100\n  cacheSize: 2000\n"},
		{name: "bad limit", data: "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Pod\n  qps: 0\n  burst: 1\n",
			wantErr: `[limits[0].type: Unsupported value: "Pod": supported values: "Namespace", "Server", "SourceAndObject", "User", limits[0].qps: Invalid value: 0: must be positive]`},
		{name: "wrong kind", data: "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Other\nlimits: []\n", wantErr: `no kind "Other" is registered for version "eventratelimit.admission.k8s.io/v1alpha1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfiguration([]byte(tt.data))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("got %v\nwant %s", err, tt.wantErr)
			}
		})
	}
}
