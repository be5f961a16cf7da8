package e2e

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// fixtureLine is one line of a testdata fixture: the compared fields and
// the issue that will serve it ("" if served).
type fixtureLine struct {
	line    string
	pending string
}

// readFixture reads testdata/name, whose lines have n fields optionally
// followed by "pending <issue>".
func readFixture(t *testing.T, name string, n int) []fixtureLine {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixtureLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < n {
			t.Fatalf("%s: %q has fewer than %d fields", name, line, n)
		}
		r := fixtureLine{line: strings.Join(fields[:n], " ")}
		if len(fields) > n+1 && fields[n] == "pending" {
			r.pending = fields[n+1]
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareFixture reports every line served but not expected, expected
// but not served, or served though marked pending.
func compareFixture(t *testing.T, name string, want []fixtureLine, served map[string]bool) {
	t.Helper()
	expected := map[string]bool{}
	for _, r := range want {
		expected[r.line] = true
		switch {
		case r.pending == "" && !served[r.line]:
			t.Errorf("%s: not served: %s", name, r.line)
		case r.pending != "" && served[r.line]:
			t.Errorf("%s: served but marked pending %s: %s", name, r.pending, r.line)
		}
	}
	for line := range served {
		if !expected[line] {
			t.Errorf("%s: served but not by kube-apiserver 1.37 with default flags: %s", name, line)
		}
	}
}

// TestAPIResources compares what discovery announces, in the preferred
// version of each group as kubectl api-resources shows it (name, short
// names, group version, scope, kind and verbs), and every served group
// version as kubectl api-versions prints it, with what kube-apiserver
// 1.37 serves by default (testdata/api-resources.txt, api-versions.txt).
func TestAPIResources(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	lists, err := k.Clientset().Discovery().ServerPreferredResources()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	served := map[string]bool{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			short := "-"
			if len(r.ShortNames) > 0 {
				short = strings.Join(r.ShortNames, ",")
			}
			verbs := slices.Sorted(slices.Values([]string(r.Verbs)))
			served[strings.Join([]string{r.Name, short, l.GroupVersion, strconvBool(r.Namespaced), r.Kind, strings.Join(verbs, ",")}, " ")] = true
		}
	}
	compareFixture(t, "api-resources.txt", readFixture(t, "api-resources.txt", 6), served)

	out, err := k.Kubectl(t, "api-resources", "--no-headers")
	if err != nil {
		t.Fatalf("kubectl api-resources: %v\n%s", err, out)
	}
	if got := len(strings.Split(strings.TrimSpace(out), "\n")); got != len(served) {
		t.Errorf("kubectl api-resources printed %d lines, discovery has %d:\n%s", got, len(served), out)
	}

	out, err = k.Kubectl(t, "api-versions")
	if err != nil {
		t.Fatalf("kubectl api-versions: %v\n%s", err, out)
	}
	versions := map[string]bool{}
	for _, v := range strings.Fields(out) {
		versions[v] = true
	}
	compareFixture(t, "api-versions.txt", readFixture(t, "api-versions.txt", 1), versions)
}

func strconvBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestEventsInBothGroups creates a core/v1 Event and reads it back as
// events.k8s.io/v1, and the reverse.
func TestEventsInBothGroups(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	cs := k.Clientset()
	ctx := context.Background()
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	core := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "core-made"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "default"},
		Reason:         "Started",
		Message:        "started the thing",
		Type:           corev1.EventTypeNormal,
		Source:         corev1.EventSource{Component: "tester"},
		FirstTimestamp: now,
		LastTimestamp:  now,
		Count:          2,
	}
	if _, err := cs.CoreV1().Events("default").Create(ctx, core, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Note != "started the thing" || list.Items[0].Regarding.Name != "p" || list.Items[0].DeprecatedCount != 2 {
		t.Fatalf("events.k8s.io list = %+v", list.Items)
	}
	got, err := cs.EventsV1().Events("default").Get(ctx, "core-made", metav1.GetOptions{})
	if err != nil || got.DeprecatedSource.Component != "tester" {
		t.Fatalf("events.k8s.io get = %+v, %v", got, err)
	}
	// events.k8s.io keeps the note immutable, as upstream.
	got.Note = "changed"
	if _, err := cs.EventsV1().Events("default").Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("note update through events.k8s.io: %v, want Invalid", err)
	}
	got.Note = "started the thing"
	got.Labels = map[string]string{"via": "events.k8s.io"}
	if _, err := cs.EventsV1().Events("default").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update through events.k8s.io: %v", err)
	}
	back, err := cs.CoreV1().Events("default").Get(ctx, "core-made", metav1.GetOptions{})
	if err != nil || back.Labels["via"] != "events.k8s.io" || back.Message != "started the thing" || back.InvolvedObject.Name != "p" {
		t.Fatalf("core get after events.k8s.io update = %+v, %v", back, err)
	}
	out, err := k.Kubectl(t, "get", "events.events.k8s.io", "-n", "default", "-o", "jsonpath={.items[0].apiVersion} {.items[0].note}")
	if err != nil || out != "events.k8s.io/v1 started the thing" {
		t.Errorf("kubectl get events.events.k8s.io: %q, %v", out, err)
	}
}

// TestEventsFieldSelectors lists events.k8s.io/v1 Events with the field
// selectors kube-apiserver documents for them (regarding.*,
// reportingController, type, reason), which map onto the core fields of
// the shared storage.
func TestEventsFieldSelectors(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	cs := k.Clientset()
	ctx := context.Background()
	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	for _, e := range []struct{ name, pod, reason, typ string }{
		{"a", "web-0", "Started", corev1.EventTypeNormal},
		{"b", "web-1", "BackOff", corev1.EventTypeWarning},
	} {
		ev := &eventsv1.Event{
			ObjectMeta:          metav1.ObjectMeta{Name: e.name},
			EventTime:           now,
			ReportingController: "example.com/" + e.name,
			ReportingInstance:   "i",
			Action:              "Run",
			Reason:              e.reason,
			Type:                e.typ,
			Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: e.pod},
		}
		if _, err := cs.EventsV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for selector, want := range map[string]string{
		"regarding.name=web-1":              "b",
		"regarding.kind=Pod,reason=Started": "a",
		"reportingController=example.com/a": "a",
		"type=Warning":                      "b",
	} {
		list, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			t.Errorf("%s: %v", selector, err)
			continue
		}
		if len(list.Items) != 1 || list.Items[0].Name != want {
			t.Errorf("%s: got %d events %v, want only %s", selector, len(list.Items), list.Items, want)
		}
	}
	if _, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "note=x"}); !apierrors.IsBadRequest(err) {
		t.Errorf("unsupported field selector: %v, want BadRequest", err)
	}
}

// TestHPAAcrossVersions creates an autoscaling/v1 HorizontalPodAutoscaler
// and reads it back in v2 and v1.
func TestHPAAcrossVersions(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	cs := k.Clientset()
	ctx := context.Background()
	v1hpa := &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef:                 autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:                    ptr.To[int32](2),
			MaxReplicas:                    5,
			TargetCPUUtilizationPercentage: ptr.To[int32](60),
		},
	}
	if _, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Create(ctx, v1hpa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	v2, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v2.Spec.Metrics) != 1 || v2.Spec.Metrics[0].Resource == nil || v2.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU ||
		ptr.Deref(v2.Spec.Metrics[0].Resource.Target.AverageUtilization, 0) != 60 || ptr.Deref(v2.Spec.MinReplicas, 0) != 2 {
		t.Fatalf("v2 view = %+v", v2.Spec)
	}
	for k := range v2.Annotations {
		if strings.HasPrefix(k, "autoscaling.alpha.kubernetes.io/") {
			t.Errorf("v2 object carries the v1 round-trip annotation %s", k)
		}
	}
	back, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || ptr.Deref(back.Spec.TargetCPUUtilizationPercentage, 0) != 60 {
		t.Fatalf("v1 view = %+v, %v", back, err)
	}
	out, err := k.Kubectl(t, "get", "hpa", "web", "-n", "default", "--no-headers")
	if err != nil || !slices.Contains(strings.Fields(out), "Deployment/web") {
		t.Errorf("kubectl get hpa: %q, %v", out, err)
	}
}
