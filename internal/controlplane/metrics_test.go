package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// scrape reads /metrics of the server as cs's user.
func scrape(t *testing.T, cs kubernetes.Interface) map[string]*dto.MetricFamily {
	t.Helper()
	body, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// value sums, over the series of family whose labels include want, the
// counter or gauge values and the histogram sample counts.
func sampleValue(families map[string]*dto.MetricFamily, family string, want map[string]string) float64 {
	var sum float64
	for _, m := range families[family].GetMetric() {
		matched := 0
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
				matched++
			}
		}
		if matched != len(want) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

// requests are the labels of apiserver_request_total for podtemplates in
// one namespace, which nothing else in a server without controllers
// touches at that scope.
func requests(verb, scope, code string) map[string]string {
	return map[string]string{"verb": verb, "group": "", "version": "v1", "resource": "podtemplates",
		"subresource": "", "scope": scope, "component": "apiserver", "code": code, "dry_run": ""}
}

func newPodTemplate(name string) *corev1.PodTemplate {
	return &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
		}},
	}
}

// TestMetricsAfterWorkload runs a known workload against a real server
// and checks what /metrics says of it, the way a dashboard reads it:
// apiserver_request_total by verb, scope and code, the latency and size
// histograms, the long-running gauge of an open watch and its events.
func TestMetricsAfterWorkload(t *testing.T) {
	s := startServer(t, "memory", withoutControllers)
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pts := cs.CoreV1().PodTemplates("bench")
	before := scrape(t, cs)

	for i := range 3 {
		if _, err := pts.Create(ctx, newPodTemplate(fmt.Sprintf("pt-%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pts.Create(ctx, newPodTemplate("dry"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := pts.Get(ctx, "pt-0", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pts.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get of a missing object: %v, want NotFound", err)
	}
	list, err := pts.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	apply := `{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"applied"},"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}`
	if _, err := pts.Patch(ctx, "applied", types.ApplyPatchType, []byte(apply), metav1.PatchOptions{FieldManager: "metrics-test"}); err != nil {
		t.Fatal(err)
	}
	// A resource no route serves is no label value.
	if err := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces/bench/nosuchthings").Do(ctx).Error(); !apierrors.IsNotFound(err) {
		t.Fatalf("get of an unknown resource: %v, want NotFound", err)
	}

	w, err := pts.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	// The events of the apply, then of one more create.
	if _, err := pts.Create(ctx, newPodTemplate("pt-3"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for ev := range w.ResultChan() {
		if ev.Type == watch.Added && ev.Object.(*corev1.PodTemplate).Name == "pt-3" {
			break
		}
	}
	during := scrape(t, cs)
	longRunning := map[string]string{"verb": "WATCH", "resource": "podtemplates", "scope": "namespace"}
	if got := sampleValue(during, "apiserver_longrunning_requests", longRunning); got != 1 {
		t.Errorf("apiserver_longrunning_requests%v during the watch = %v, want 1", longRunning, got)
	}
	w.Stop()

	// The watch is counted when the server sees it end.
	var after map[string]*dto.MetricFamily
	watchDone := requests("WATCH", "namespace", "200")
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		after = scrape(t, cs)
		return sampleValue(after, "apiserver_request_total", watchDone)-sampleValue(before, "apiserver_request_total", watchDone) == 1, nil
	})
	if err != nil {
		t.Fatalf("the ended watch is not counted in apiserver_request_total%v: %v", watchDone, err)
	}

	delta := func(family string, labels map[string]string) float64 {
		return sampleValue(after, family, labels) - sampleValue(before, family, labels)
	}
	dryRun := requests("POST", "resource", "201")
	dryRun["dry_run"] = "All"
	for _, c := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"apiserver_request_total", requests("POST", "resource", "201"), 4},
		{"apiserver_request_total", dryRun, 1},
		{"apiserver_request_total", requests("GET", "resource", "200"), 2},
		{"apiserver_request_total", requests("GET", "resource", "404"), 1},
		{"apiserver_request_total", requests("LIST", "namespace", "200"), 1},
		{"apiserver_request_total", requests("APPLY", "resource", "201"), 1},
		{"apiserver_request_total", map[string]string{"resource": "nosuchthings"}, 0},
		{"apiserver_request_duration_seconds", map[string]string{"verb": "POST", "resource": "podtemplates", "dry_run": ""}, 4},
		{"apiserver_request_sli_duration_seconds", map[string]string{"verb": "POST", "resource": "podtemplates"}, 4},
		{"apiserver_response_sizes", map[string]string{"verb": "GET", "resource": "podtemplates"}, 3},
		{"apiserver_response_sizes", map[string]string{"verb": "LIST", "resource": "podtemplates", "scope": "namespace"}, 1},
		{"apiserver_longrunning_requests", longRunning, 0},
		{"apiserver_watch_events_total", map[string]string{"group": "", "version": "v1", "resource": "podtemplates"}, 2},
	} {
		if got := delta(c.family, c.labels); got != c.want {
			t.Errorf("%s%v went up by %v, want %v", c.family, c.labels, got, c.want)
		}
	}
	for _, c := range []struct {
		family string
		labels map[string]string
	}{
		{"authentication_attempts", map[string]string{"result": "success"}},
		{"authorization_attempts_total", map[string]string{"result": "allowed"}},
		{"apiserver_request_filter_duration_seconds", map[string]string{"filter": "authorization"}},
		{"apiserver_request_filter_duration_seconds", map[string]string{"filter": "authentication"}},
	} {
		if got := delta(c.family, c.labels); got < 1 {
			t.Errorf("%s%v went up by %v, want at least 1", c.family, c.labels, got)
		}
	}
	// sum(rate(apiserver_request_total[1m])) by (verb, code), restricted
	// to the workload's resource.
	byVerbCode := map[string]float64{}
	for _, m := range after["apiserver_request_total"].GetMetric() {
		l := labelMap(m)
		if l["resource"] == "podtemplates" && l["scope"] != "cluster" {
			byVerbCode[l["verb"]+" "+l["code"]] += m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{"POST 201": 5, "GET 200": 2, "GET 404": 1, "LIST 200": 1, "APPLY 201": 1, "WATCH 200": 1}
	for k, v := range want {
		if byVerbCode[k] != v {
			t.Errorf("requests by verb and code: %v, want %v", byVerbCode, want)
			break
		}
	}

	// /metrics stays behind authorization.
	anonymous, err := kubernetes.NewForConfig(rest.AnonymousClientConfig(s.restCfg))
	if err != nil {
		t.Fatal(err)
	}
	err = anonymous.CoreV1().RESTClient().Get().AbsPath("/metrics").Do(ctx).Error()
	if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
		t.Errorf("anonymous GET /metrics: %v, want 401 or 403", err)
	}
}

func labelMap(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// upstreamFamily is a line of testdata/metrics/upstream_families.txt.
type upstreamFamily struct {
	name, typ, level, labels string
	// when is "" (every scrape of the test's workload), "etcd" or "rare"
	// (see the file).
	when string
}

func readUpstreamFamilies(t *testing.T) []upstreamFamily {
	t.Helper()
	f, err := os.Open("testdata/metrics/upstream_families.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []upstreamFamily
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 4 && len(fields) != 5 {
			t.Fatalf("malformed line %q", line)
		}
		fam := upstreamFamily{name: fields[0], typ: fields[1], level: fields[2], labels: fields[3]}
		if len(fields) == 5 {
			fam.when = fields[4]
			if fam.when != "etcd" && fam.when != "rare" {
				t.Fatalf("line %q: unknown condition %q", line, fam.when)
			}
		}
		out = append(out, fam)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkFamily compares a scraped family with the upstream line.
func checkFamily(t *testing.T, mf *dto.MetricFamily, want upstreamFamily) {
	t.Helper()
	if got := strings.ToLower(mf.GetType().String()); got != want.typ {
		t.Errorf("%s: type %s, want %s", want.name, got, want.typ)
	}
	if prefix := "[" + want.level + "] "; !strings.HasPrefix(mf.GetHelp(), prefix) {
		t.Errorf("%s: HELP %q does not start with %q", want.name, mf.GetHelp(), prefix)
	}
	for _, m := range mf.GetMetric() {
		var names []string
		for _, l := range m.GetLabel() {
			names = append(names, l.GetName())
		}
		slices.Sort(names)
		got := strings.Join(names, ",")
		if got == "" {
			got = "-"
		}
		if got != want.labels {
			t.Errorf("%s: labels %s, want %s", want.name, got, want.labels)
			break
		}
	}
}

// TestMetricsFamiliesMatchUpstream checks scrapes after some requests
// against the families, types, stability levels and label names kept in
// testdata as kube-apiserver has them: a memory-backed server for every
// family but the etcd backend's, an etcd-backed one for those.
func TestMetricsFamiliesMatchUpstream(t *testing.T) {
	want := readUpstreamFamilies(t)
	t.Run("memory", func(t *testing.T) {
		families := familiesWorkload(t)
		for _, fam := range want {
			mf := families[fam.name]
			switch {
			case fam.when == "etcd":
				continue
			case mf == nil && fam.when == "rare":
				continue
			case mf == nil:
				t.Errorf("%s: missing from /metrics", fam.name)
				continue
			}
			checkFamily(t, mf, fam)
		}
	})
	t.Run("etcd", func(t *testing.T) {
		families := etcdFamiliesWorkload(t)
		for _, fam := range want {
			if fam.when != "etcd" {
				continue
			}
			if mf := families[fam.name]; mf == nil {
				t.Errorf("%s: missing from /metrics of an etcd-backed server", fam.name)
			} else {
				checkFamily(t, mf, fam)
			}
		}
	})
}

// familiesWorkload runs on a memory-backed server what gives every family
// not marked etcd or rare a series, and scrapes it.
func familiesWorkload(t *testing.T) map[string]*dto.MetricFamily {
	s := startServer(t, "memory", withoutControllers, withInFlight(400, 200)) // in-flight limits size APF
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("bench")
	// A watch with an event, so the watch families have series.
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	<-w.ResultChan()
	// A watch from "0" starts with the object as an init event.
	w0, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w0.Stop()
	<-w0.ResultChan()
	// Consistent lists from the cache, each right after a write to
	// another resource, which the cache waits to catch up with (unless a
	// progress notification happened to arrive in between: then again).
	var families map[string]*dto.MetricFamily
	pts := cs.CoreV1().PodTemplates("bench")
	for i := 0; families["apiserver_watch_cache_read_wait_seconds"] == nil; i++ {
		if i == 5 {
			t.Fatal("no consistent list waited for the cache in 5 tries")
		}
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("wait-", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := pts.List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		families = scrape(t, cs)
	}
	// A request RBAC decides: discovery as a plain authenticated user
	// (the admin passes the system:masters bypass, which is not counted).
	alice := rest.CopyConfig(s.restCfg)
	alice.Impersonate = rest.ImpersonationConfig{UserName: "alice", Groups: []string{"system:authenticated"}}
	acs, err := kubernetes.NewForConfig(alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acs.Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	// A request whose deadline passes before it is served: a 504 the
	// server terminated it with. The handler may rarely win the race
	// with a 1ns deadline; then again.
	for i := 0; ; i++ {
		err := cs.CoreV1().RESTClient().Get().Namespace("bench").Resource("configmaps").Param("timeout", "1ns").Do(ctx).Error()
		if apierrors.IsTimeout(err) {
			break
		}
		if i == 5 {
			t.Fatalf("a list with a 1ns timeout: %v, want a timeout in 5 tries", err)
		}
	}
	return scrape(t, cs)
}

// etcdFamiliesWorkload runs on an etcd-backed server what gives the etcd
// families a series, and scrapes it.
func etcdFamiliesWorkload(t *testing.T) map[string]*dto.MetricFamily {
	s := startServer(t, "etcd3", withoutControllers)
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// An etcd error: an exact list of a revision etcd has not reached.
	_, err = cs.CoreV1().ConfigMaps("bench").List(ctx, metav1.ListOptions{ResourceVersion: "999999999", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsTimeout(err) {
		t.Fatalf("exact list of a future resourceVersion: %v, want the too-large resourceVersion timeout", err)
	}
	// A progress notification from etcd: the caches ask for one every
	// few seconds, and whenever a consistent read waits for one.
	var families map[string]*dto.MetricFamily
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		if _, err := cs.CoreV1().PodTemplates("bench").List(ctx, metav1.ListOptions{}); err != nil {
			return false, err
		}
		families = scrape(t, cs)
		return families["etcd_bookmark_total"] != nil, nil
	})
	if err != nil {
		t.Fatalf("no progress notification from etcd counted: %v", err)
	}
	return families
}
