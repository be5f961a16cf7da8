package replicationcontroller

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

type storages struct {
	scheme        *runtime.Scheme
	store         *generic.Store
	status, scale rest.Patcher
}

func newTestStorage(t *testing.T) storages {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	s, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewStorage: %v", err)
	}
	return storages{scheme, s["replicationcontrollers"].(*generic.Store),
		s["replicationcontrollers/status"].(rest.Patcher), s["replicationcontrollers/scale"].(rest.Patcher)}
}

func TestGolden(t *testing.T) {
	s := newTestStorage(t)
	rc := registrytest.Golden(t, s.scheme, s.store, "testdata", "replicationcontroller").(*corev1.ReplicationController)
	if rc.Generation != 1 || *rc.Spec.Replicas != 1 || rc.Spec.Selector["app"] != "web" || rc.Labels["app"] != "web" {
		t.Errorf("created %+v", rc)
	}
	if !cmp.Equal(s.store.ShortNames(), []string{"rc"}) || !cmp.Equal(s.store.Categories(), []string{"all"}) {
		t.Errorf("short names %v categories %v", s.store.ShortNames(), s.store.Categories())
	}
}

// validRC is defaulted by the scheme, as a decoded request would be.
func validRC(t *testing.T, scheme *runtime.Scheme, mutate func(*corev1.ReplicationController)) *corev1.ReplicationController {
	rc := &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "rc", Namespace: "ns"},
		Spec: corev1.ReplicationControllerSpec{
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
	mutate(rc)
	scheme.Default(rc)
	return rc
}

func causes(err error) []string {
	var got []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		got = append(got, c.Field)
	}
	return got
}

func TestCreateInvalid(t *testing.T) {
	s := newTestStorage(t)
	tests := []struct {
		name   string
		mutate func(*corev1.ReplicationController)
		causes []string
	}{
		{"selector mismatch", func(rc *corev1.ReplicationController) { rc.Spec.Selector = map[string]string{"app": "y"} },
			[]string{"spec.template.metadata.labels"}},
		{"negative replicas", func(rc *corev1.ReplicationController) { rc.Spec.Replicas = ptr.To[int32](-1) }, []string{"spec.replicas"}},
		{"no template", func(rc *corev1.ReplicationController) { rc.Spec.Template = nil }, []string{"spec.selector", "spec.template"}},
		{"restart policy", func(rc *corev1.ReplicationController) {
			rc.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		},
			[]string{"spec.template.spec.restartPolicy"}},
	}
	ctx := registrytest.NamespaceContext("ns")
	for _, tt := range tests {
		_, err := s.store.Create(ctx, validRC(t, s.scheme, tt.mutate), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("%s: %v, want Invalid", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.causes, causes(err)); diff != "" {
			t.Errorf("%s causes (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestUpdatesAndScale(t *testing.T) {
	s := newTestStorage(t)
	ctx := registrytest.NamespaceContext("ns")
	rc := validRC(t, s.scheme, func(rc *corev1.ReplicationController) {})
	rc.Status.Replicas = 7
	obj, err := s.store.Create(ctx, rc, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	created := obj.(*corev1.ReplicationController)
	if created.Status.Replicas != 0 || created.Generation != 1 {
		t.Errorf("create: status=%+v generation=%d", created.Status, created.Generation)
	}

	// A metadata-only update keeps the generation and the status.
	meta := created.DeepCopy()
	meta.Annotations = map[string]string{"a": "b"}
	meta.Status.Replicas = 3
	obj, _, err = s.store.Update(ctx, "rc", rest.DefaultUpdatedObjectInfo(meta), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if got := obj.(*corev1.ReplicationController); got.Generation != 1 || got.Status.Replicas != 0 {
		t.Errorf("metadata update: generation=%d status=%+v", got.Generation, got.Status)
	}

	// The status subresource keeps spec and generation.
	st := obj.(*corev1.ReplicationController).DeepCopy()
	st.Spec.Replicas = ptr.To[int32](9)
	st.Status = corev1.ReplicationControllerStatus{Replicas: 1, ReadyReplicas: 1}
	obj, _, err = s.status.Update(ctx, "rc", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if got := obj.(*corev1.ReplicationController); *got.Spec.Replicas != 1 || got.Status.Replicas != 1 || got.Generation != 1 {
		t.Errorf("status update: replicas=%d status=%+v generation=%d", *got.Spec.Replicas, got.Status, got.Generation)
	}
	bad := obj.(*corev1.ReplicationController).DeepCopy()
	bad.Status.ReadyReplicas = 5
	_, _, err = s.status.Update(ctx, "rc", rest.DefaultUpdatedObjectInfo(bad), nil, nil, false, &metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !cmp.Equal(causes(err), []string{"status.readyReplicas"}) {
		t.Errorf("bad status: %v", err)
	}

	// Scaling bumps the generation and keeps status.
	obj, _, err = s.scale.Update(ctx, "rc", rest.DefaultUpdatedObjectInfo(&autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "rc", Namespace: "ns"}, Spec: autoscalingv1.ScaleSpec{Replicas: 4}}), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("scale: %v", err)
	}
	if sc := obj.(*autoscalingv1.Scale); sc.Spec.Replicas != 4 || sc.Status.Replicas != 1 || sc.Status.Selector != "app=x" {
		t.Errorf("scale = %+v", sc)
	}
	got, err := s.store.Get(ctx, "rc", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rc := got.(*corev1.ReplicationController); *rc.Spec.Replicas != 4 || rc.Generation != 2 || rc.Status.Replicas != 1 {
		t.Errorf("after scale: replicas=%d generation=%d status=%+v", *rc.Spec.Replicas, rc.Generation, rc.Status)
	}

	// status.replicas is selectable.
	list, err := s.store.List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("status.replicas", "1")})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.(*corev1.ReplicationControllerList).Items); n != 1 {
		t.Errorf("status.replicas=1 selected %d", n)
	}
}

func TestTable(t *testing.T) {
	now := registrytest.GoldenTime.Add(48 * time.Hour)
	rc := &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "web", CreationTimestamp: registrytest.GoldenTime},
		Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](3), Selector: map[string]string{"app": "web"},
			Template: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "nginx"}, {Name: "b", Image: "busybox"}}}}},
		Status: corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 1},
	}
	got, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), rc, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"web", int64(3), int64(2), int64(1), "2d", "a,b", "nginx,busybox", "app=web"}
	if diff := cmp.Diff(want, got.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
