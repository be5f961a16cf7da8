package limitranger

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/admission"
)

func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func rangeOf(items ...corev1.LimitRangeItem) *corev1.LimitRange {
	return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lr"}, Spec: corev1.LimitRangeSpec{Limits: items}}
}

func lister(t *testing.T, lrs ...*corev1.LimitRange) corev1listers.LimitRangeLister {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, lr := range lrs {
		if err := idx.Add(lr); err != nil {
			t.Fatal(err)
		}
	}
	return corev1listers.NewLimitRangeLister(idx)
}

func podWith(containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: corev1.PodSpec{Containers: containers}}
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

var (
	podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	pvcsGVR = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
)

// TestDefaults pins what upstream sets and the annotation it writes.
func TestDefaults(t *testing.T) {
	lr := rangeOf(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
		Default: list("cpu", "500m", "memory", "256Mi"), DefaultRequest: list("cpu", "100m")})
	p := New(lister(t, lr), nil, nil)
	pod := podWith(container("a", nil, nil), container("b", list("cpu", "200m"), list("memory", "1Gi")))
	pod.Spec.InitContainers = []corev1.Container{container("init", nil, nil)}
	if err := p.Admit(context.Background(), &admission.Attributes{Namespace: "ns", Resource: podsGVR, Operation: admission.Create, Object: pod}); err != nil {
		t.Fatal(err)
	}
	want := []corev1.ResourceRequirements{
		{Requests: list("cpu", "100m"), Limits: list("cpu", "500m", "memory", "256Mi")},
		{Requests: list("cpu", "200m"), Limits: list("cpu", "500m", "memory", "1Gi")},
	}
	for i, c := range pod.Spec.Containers {
		if d := cmp.Diff(want[i], c.Resources); d != "" {
			t.Errorf("container %s (-want +got):\n%s", c.Name, d)
		}
	}
	wantNote := "LimitRanger plugin set: cpu request for container a; cpu, memory limit for container a; cpu limit for container b; cpu request for init container init; cpu, memory limit for init container init"
	if got := pod.Annotations[Annotation]; got != wantNote {
		t.Errorf("annotation:\n got %q\nwant %q", got, wantNote)
	}
}

func TestValidate(t *testing.T) {
	containerRange := rangeOf(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
		Min: list("cpu", "100m"), Max: list("memory", "1Gi"), MaxLimitRequestRatio: list("cpu", "2")})
	podRange := rangeOf(corev1.LimitRangeItem{Type: corev1.LimitTypePod, Max: list("cpu", "1")})
	pvcRange := rangeOf(corev1.LimitRangeItem{Type: corev1.LimitTypePersistentVolumeClaim, Min: list("storage", "1Gi"), Max: list("storage", "10Gi")})
	claim := func(size string) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
		if size != "" {
			c.Spec.Resources.Requests = list("storage", size)
		}
		return c
	}
	tests := []struct {
		name  string
		lr    *corev1.LimitRange
		attrs admission.Attributes
		err   string
	}{
		{"container within range", containerRange,
			admission.Attributes{Name: "p", Resource: podsGVR, Operation: admission.Create, Object: podWith(container("a", list("cpu", "200m"), list("cpu", "400m", "memory", "1Gi")))}, ""},
		{"below min", containerRange,
			admission.Attributes{Name: "p", Resource: podsGVR, Operation: admission.Create, Object: podWith(container("a", list("cpu", "50m"), list("cpu", "100m", "memory", "1Gi")))},
			`pods "p" is forbidden: minimum cpu usage per Container is 100m, but request is 50m`},
		{"no limit for max", containerRange,
			admission.Attributes{Name: "p", Resource: podsGVR, Operation: admission.Create, Object: podWith(container("a", list("cpu", "100m"), list("cpu", "100m")))},
			`pods "p" is forbidden: maximum memory usage per Container is 1Gi.  No limit is specified`},
		{"ratio exceeded", containerRange,
			admission.Attributes{Name: "p", Resource: podsGVR, Operation: admission.Create, Object: podWith(container("a", list("cpu", "100m"), list("cpu", "300m", "memory", "1Gi")))},
			`pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000`},
		{"pod total over max", podRange,
			admission.Attributes{Name: "p", Resource: podsGVR, Operation: admission.Create, Object: podWith(container("a", nil, list("cpu", "600m")), container("b", nil, list("cpu", "600m")))},
			`pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m`},
		{"pod update is not checked", podRange,
			admission.Attributes{Name: "p", Resource: podsGVR, Operation: admission.Update, Object: podWith(container("a", nil, list("cpu", "2")))}, ""},
		{"claim too small", pvcRange,
			admission.Attributes{Name: "c", Resource: pvcsGVR, Operation: admission.Create, Object: claim("500Mi")},
			`persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi`},
		{"claim too big on update", pvcRange,
			admission.Attributes{Name: "c", Resource: pvcsGVR, Operation: admission.Update, Object: claim("20Gi"), OldObject: claim("5Gi")},
			`persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi`},
		{"claim being deleted is not checked", pvcRange,
			admission.Attributes{Name: "c", Resource: pvcsGVR, Operation: admission.Update, Object: claim("20Gi"), OldObject: func() *corev1.PersistentVolumeClaim {
				c := claim("20Gi")
				c.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
				return c
			}()}, ""},
		{"claim status is not checked", pvcRange,
			admission.Attributes{Name: "c", Resource: pvcsGVR, Subresource: "status", Operation: admission.Update, Object: claim("20Gi")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.attrs.Namespace = "ns"
			err := New(lister(t, tt.lr), nil, nil).Validate(context.Background(), &tt.attrs)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
			}
		})
	}
}

// TestLiveLookup: an empty lister falls back to a live list, remembered
// for 30 s.
func TestLiveLookup(t *testing.T) {
	lr := rangeOf(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, DefaultRequest: list("cpu", "100m")})
	calls := 0
	live := func(_ context.Context, ns string) ([]*corev1.LimitRange, error) {
		calls++
		return []*corev1.LimitRange{lr}, nil
	}
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	p := New(lister(t), live, clk)
	admit := func() *corev1.Pod {
		pod := podWith(container("a", nil, nil))
		if err := p.Admit(context.Background(), &admission.Attributes{Namespace: "ns", Resource: podsGVR, Operation: admission.Create, Object: pod}); err != nil {
			t.Fatal(err)
		}
		return pod
	}
	if pod := admit(); pod.Spec.Containers[0].Resources.Requests.Cpu().String() != "100m" {
		t.Errorf("live range not applied: %v", pod.Spec.Containers[0].Resources)
	}
	admit()
	if calls != 1 {
		t.Errorf("%d live lists within the TTL, want 1", calls)
	}
	clk.SetTime(clk.Now().Add(31 * time.Second))
	admit()
	if calls != 2 {
		t.Errorf("%d live lists after the TTL, want 2", calls)
	}
}
