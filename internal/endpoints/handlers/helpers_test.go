package handlers

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

func TestWatchTimeout(t *testing.T) {
	secs := func(n int64) *int64 { return &n }
	cases := []struct {
		name     string
		seconds  *int64
		min      time.Duration
		from, to time.Duration // [from, to)
	}{
		{"timeoutSeconds wins", secs(5), time.Minute, 5 * time.Second, 5*time.Second + 1},
		{"random in [min, 2*min)", nil, time.Minute, time.Minute, 2 * time.Minute},
		{"zero means default", secs(0), time.Minute, time.Minute, 2 * time.Minute},
		// As upstream: a negative timeout is a timer that has already
		// fired, so the watch ends at once.
		{"negative ends at once", secs(-1), time.Minute, -time.Second, -time.Second + 1},
		{"no min: upstream's 1800s", nil, 0, DefaultMinRequestTimeout, 2 * DefaultMinRequestTimeout},
	}
	for _, tc := range cases {
		for range 20 {
			got := watchTimeout(&metainternalversion.ListOptions{TimeoutSeconds: tc.seconds}, tc.min)
			if got < tc.from || got >= tc.to {
				t.Fatalf("%s: %v not in [%v, %v)", tc.name, got, tc.from, tc.to)
			}
		}
	}
}

func TestSplitYAMLWarnings(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`unknown field "spec"`, []string{`unknown field "spec"`}},
		{"yaml: unmarshal errors:\n  line 3: key \"a\" already set in map\n  line 4: unknown field \"b\"",
			[]string{`line 3: key "a" already set in map`, `line 4: unknown field "b"`}},
		{"error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: x", []string{"line 1: x"}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, splitYAMLWarnings(tc.in)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestCheckName(t *testing.T) {
	obj := func(ns, name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	cases := []struct {
		name    string
		obj     *corev1.ConfigMap
		wantErr string
	}{
		{"match", obj("ns", "a"), ""},
		{"no namespace in body", obj("", "a"), ""},
		{"other name", obj("ns", "b"), "the name of the object (b) does not match the name on the URL (a)"},
		{"no name", obj("ns", ""), "name must be provided"},
		{"other namespace", obj("x", "a"), "the namespace of the object (x) does not match the namespace on the request (ns)"},
	}
	for _, tc := range cases {
		err := checkName(tc.obj, "a", "ns")
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr || !apierrors.IsBadRequest(err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestEnsureNamespace(t *testing.T) {
	cases := []struct {
		objNS, requestNS, want string
		wantErr                bool
	}{
		{"", "ns", "ns", false},
		{"ns", "ns", "ns", false},
		{"ns", "", "", false},
		{"x", "ns", "x", true},
	}
	for _, tc := range cases {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tc.objNS}}
		err := ensureNamespace(cm, tc.requestNS)
		if (err != nil) != tc.wantErr || cm.Namespace != tc.want {
			t.Errorf("%q in %q: namespace %q err %v", tc.objNS, tc.requestNS, cm.Namespace, err)
		}
	}
}

func TestSummarizeData(t *testing.T) {
	cases := map[string]string{
		"":                                     "<empty>",
		`{"a":1}`:                              `{"a":1}`,
		`{"abcdefghijklmnopqrstuvwxyz0123":1}`: `{"abcdefghijklmnopqrstuvwxyz01 ...`,
		"\x01\x02":                             "0102",
	}
	for in, want := range cases {
		if got := summarizeData([]byte(in), 30); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

type recorder struct{ warnings []string }

func (r *recorder) AddWarning(_, text string) { r.warnings = append(r.warnings, text) }

func TestDedupOwnerReferences(t *testing.T) {
	ref := func(uid, name string) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: name, UID: types.UID("u" + uid)}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{
		ref("1", "a"), ref("1", "a"), ref("1", "other-name"), ref("2", "b"),
	}}}
	rec := &recorder{}
	dedupOwnerReferences(warning.WithRecorder(context.Background(), rec), cm, false)
	if len(cm.OwnerReferences) != 3 {
		t.Errorf("kept %d refs, want 3 (same uid, different content stays)", len(cm.OwnerReferences))
	}
	if len(rec.warnings) != 1 || !strings.Contains(rec.warnings[0], "duplicate UID(s) observed: u1") {
		t.Errorf("warnings %q", rec.warnings)
	}
}

func TestRejectExport(t *testing.T) {
	cases := map[string]bool{"/x": false, "/x?export=false": false, "/x?export=true": true, "/x?export": true, "/x?export=maybe": true}
	for path, wantErr := range cases {
		if err := rejectExport(httptest.NewRequest("GET", path, nil)); (err != nil) != wantErr {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestLimitedReadBody(t *testing.T) {
	for _, tc := range []struct {
		body    string
		limit   int64
		wantErr bool
	}{{"12345", 5, false}, {"123456", 5, true}, {"123456", 0, false}} {
		_, err := limitedReadBody(httptest.NewRequest("POST", "/", strings.NewReader(tc.body)), tc.limit)
		if (err != nil) != tc.wantErr || tc.wantErr && !apierrors.IsRequestEntityTooLargeError(err) {
			t.Errorf("%q limit %d: %v", tc.body, tc.limit, err)
		}
	}
}
