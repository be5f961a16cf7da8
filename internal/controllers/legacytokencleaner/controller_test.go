package legacytokencleaner

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/controllers/apiserverinfo"
)

var now = time.Date(2027, 6, 1, 12, 0, 0, 0, time.UTC)

func day(t time.Time) string { return t.Format(dateFormat) }

func tracking(since time.Time) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: apiserverinfo.LegacyTokenTrackingConfigMap, Namespace: metav1.NamespaceSystem},
		Data:       map[string]string{apiserverinfo.LegacyTokenTrackingKey: day(since)},
	}
}

func token(created time.Time, labels map[string]string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "tok", Namespace: "x", UID: "s1", ResourceVersion: "7",
			CreationTimestamp: metav1.NewTime(created), Labels: labels,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
}

func account(refs ...string) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "x"}}
	for _, r := range refs {
		sa.Secrets = append(sa.Secrets, corev1.ObjectReference{Name: r})
	}
	return sa
}

func mountingPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "x"}, Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tok"}}}},
	}}
}

// TestEvaluate pins upstream's cleaner: only an auto-generated token (its
// account lists it), old enough, unused for a year and mounted by no pod
// is labelled invalid from today, and deleted a year after that.
func TestEvaluate(t *testing.T) {
	year := DefaultCleanUpPeriod
	old := now.Add(-2 * year)
	tests := []struct {
		name        string
		objs        []runtime.Object
		wantLabel   bool
		wantDeleted bool
	}{
		{name: "unused auto-generated token", objs: []runtime.Object{tracking(old), account("tok"), token(old, nil)}, wantLabel: true},
		{name: "tracking too recent", objs: []runtime.Object{tracking(now.Add(-year / 2)), account("tok"), token(old, nil)}},
		{name: "created recently", objs: []runtime.Object{tracking(old), account("tok"), token(now.Add(-time.Hour), nil)}},
		{name: "used recently", objs: []runtime.Object{tracking(old), account("tok"), token(old, map[string]string{LastUsedLabel: day(now.AddDate(0, -1, 0))})}},
		{name: "used long ago", objs: []runtime.Object{tracking(old), account("tok"), token(old, map[string]string{LastUsedLabel: day(old)})}, wantLabel: true},
		{name: "not listed by its account", objs: []runtime.Object{tracking(old), account(), token(old, nil)}},
		{name: "mounted by a pod", objs: []runtime.Object{tracking(old), account("tok"), token(old, nil), mountingPod()}},
		{name: "invalid for a year", objs: []runtime.Object{tracking(old), account("tok"), token(old, map[string]string{InvalidSinceLabel: day(now.Add(-year - 48*time.Hour))})}, wantDeleted: true},
		{name: "invalid recently", objs: []runtime.Object{tracking(old), account("tok"), token(old, map[string]string{InvalidSinceLabel: day(now.AddDate(0, -1, 0))})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(tt.objs...)
			f := informers.NewSharedInformerFactory(client, 0)
			core := f.Core().V1()
			c, err := New(client, core.ServiceAccounts(), core.Secrets().Informer(), core.Pods(), testingclock.NewFakeClock(now), DefaultCleanUpPeriod, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range tt.objs {
				switch o := o.(type) {
				case *corev1.ServiceAccount:
					_ = core.ServiceAccounts().Informer().GetIndexer().Add(o)
				case *corev1.Secret:
					_ = core.Secrets().Informer().GetIndexer().Add(o)
				case *corev1.Pod:
					_ = core.Pods().Informer().GetIndexer().Add(o)
				}
			}
			c.Evaluate(context.Background())
			s, err := client.CoreV1().Secrets("x").Get(context.Background(), "tok", metav1.GetOptions{})
			if deleted := err != nil; deleted != tt.wantDeleted {
				t.Fatalf("deleted = %v, want %v", deleted, tt.wantDeleted)
			}
			if tt.wantDeleted {
				return
			}
			label, had := s.Labels[InvalidSinceLabel]
			before := tt.objs[2].(*corev1.Secret).Labels[InvalidSinceLabel]
			if labelled := had && label != before; labelled != tt.wantLabel {
				t.Errorf("labelled invalid = %v (labels %v), want %v", labelled, s.Labels, tt.wantLabel)
			}
			if tt.wantLabel && label != day(now) {
				t.Errorf("invalid-since %q, want today %q", label, day(now))
			}
		})
	}
}
