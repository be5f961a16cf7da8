package rest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

func TestBeforeCreate(t *testing.T) {
	scheme := resttest.NewScheme()
	namespaced := resttest.NewConfigMapStrategy(scheme)
	cluster := namespaced
	cluster.ClusterScoped = true
	longPrefix := strings.Repeat("a", 70)

	tests := []struct {
		name      string
		strategy  resttest.ConfigMapStrategy
		requestNS string
		obj       *corev1.ConfigMap
		// wantCode and wantMessage describe the error; 0 when none.
		wantCode    int32
		wantMessage string
		check       func(t *testing.T, cm *corev1.ConfigMap)
	}{
		{
			name: "namespace filled from request", strategy: namespaced, requestNS: "ns",
			obj: configMap("", "foo"),
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				if cm.Namespace != "ns" {
					t.Errorf("namespace = %q, want ns", cm.Namespace)
				}
			},
		},
		{
			name: "namespace mismatch", strategy: namespaced, requestNS: "ns",
			obj:      configMap("other", "foo"),
			wantCode: 400, wantMessage: "the namespace of the provided object does not match the namespace sent on the request",
		},
		{
			name: "cluster-scoped clears namespace", strategy: cluster,
			obj: configMap("ns", "foo"),
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				if cm.Namespace != "" {
					t.Errorf("namespace = %q, want none", cm.Namespace)
				}
			},
		},
		{
			name: "system fields filled and client values dropped", strategy: namespaced, requestNS: "ns",
			obj: func() *corev1.ConfigMap {
				cm := configMap("ns", "foo")
				now := metav1.Now()
				grace := int64(30)
				cm.UID = "client-uid"
				cm.DeletionTimestamp = &now
				cm.DeletionGracePeriodSeconds = &grace
				return cm
			}(),
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				if cm.UID == "" || cm.UID == "client-uid" {
					t.Errorf("uid = %q, want a new one", cm.UID)
				}
				if cm.CreationTimestamp.IsZero() {
					t.Error("creationTimestamp not set")
				}
				if cm.DeletionTimestamp != nil || cm.DeletionGracePeriodSeconds != nil {
					t.Errorf("deletion fields kept: %v %v", cm.DeletionTimestamp, cm.DeletionGracePeriodSeconds)
				}
				if cm.Generation != 0 {
					t.Errorf("generation = %d, want 0 (strategies set it)", cm.Generation)
				}
			},
		},
		{
			name: "generateName", strategy: namespaced, requestNS: "ns",
			obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "foo-"}},
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				checkGenerated(t, cm.Name, "foo-")
			},
		},
		{
			name: "long generateName is cut to fit 63 characters", strategy: namespaced, requestNS: "ns",
			obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: longPrefix}},
			check: func(t *testing.T, cm *corev1.ConfigMap) {
				checkGenerated(t, cm.Name, longPrefix[:rest.MaxGeneratedNameLength])
			},
		},
		{
			name: "no name", strategy: namespaced, requestNS: "ns",
			obj:      configMap("", ""),
			wantCode: 422, wantMessage: `ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`,
		},
		{
			name: "strategy validation", strategy: namespaced, requestNS: "ns",
			obj: func() *corev1.ConfigMap {
				cm := configMap("", "foo")
				cm.Data = map[string]string{resttest.InvalidKey: "x"}
				return cm
			}(),
			wantCode: 422, wantMessage: `ConfigMap "foo" is invalid: data[invalid]: Invalid value: "x": this key is reserved for tests`,
		},
		{
			name: "name that cannot be a path segment", strategy: namespaced, requestNS: "ns",
			obj:      configMap("", ".."),
			wantCode: 422, wantMessage: `ConfigMap ".." is invalid: metadata.name: Invalid value: "..": may not be '..'`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := request.WithNamespace(context.Background(), tt.requestNS)
			err := rest.BeforeCreate(tt.strategy, ctx, tt.obj)
			wantStatus(t, err, tt.wantCode, tt.wantMessage)
			if err == nil && tt.check != nil {
				tt.check(t, tt.obj)
			}
		})
	}
}

func checkGenerated(t *testing.T, name, prefix string) {
	t.Helper()
	suffix, ok := strings.CutPrefix(name, prefix)
	if !ok || len(suffix) != 5 || strings.Trim(suffix, generatedAlphabet) != "" {
		t.Errorf("name %q is not %q plus 5 characters of %q", name, prefix, generatedAlphabet)
	}
	if len(name) > 63 {
		t.Errorf("name %q is %d characters long, want at most 63", name, len(name))
	}
}

func TestBeforeCreateRecordsWarnings(t *testing.T) {
	strategy := resttest.NewConfigMapStrategy(resttest.NewScheme())
	strategy.Warnings = []string{"data.x: deprecated"}
	rec := &resttest.Recorder{}
	ctx := warning.WithRecorder(request.WithNamespace(context.Background(), "ns"), rec)
	if err := rest.BeforeCreate(strategy, ctx, configMap("", "foo")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strategy.Warnings, rec.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestCheckGeneratedNameError(t *testing.T) {
	resource := corev1.Resource("configmaps")
	exists := apierrors.NewAlreadyExists(resource, "foo-abcde")
	tests := []struct {
		name        string
		obj         *corev1.ConfigMap
		err         error
		wantMessage string
	}{
		{"generated name", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "foo-abcde", GenerateName: "foo-"}}, exists,
			`configmaps "foo-abcde" already exists, the server was not able to generate a unique name for the object`},
		{"chosen name", configMap("", "foo-abcde"), exists, `configmaps "foo-abcde" already exists`},
		{"other error", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "foo-abcde", GenerateName: "foo-"}},
			apierrors.NewBadRequest("bad"), "bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rest.CheckGeneratedNameError(resource, tt.err, tt.obj)
			if s := statusOf(t, got); s.Message != tt.wantMessage {
				t.Errorf("message = %q, want %q", s.Message, tt.wantMessage)
			}
		})
	}
}

func TestSimpleNameGenerator(t *testing.T) {
	for _, base := range []string{"", "foo-", strings.Repeat("x", rest.MaxGeneratedNameLength), strings.Repeat("y", 100)} {
		name := rest.SimpleNameGenerator{}.GenerateName(base)
		checkGenerated(t, name, base[:min(len(base), rest.MaxGeneratedNameLength)])
	}
}
