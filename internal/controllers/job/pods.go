package job

import (
	"context"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
)

// This file is the minimal pod control the job controller needs: creating
// Pods from a template with a controller reference, deleting and patching
// them with upstream's events, and the expectations that keep a sync from
// acting on a cache that has not yet seen its own writes. It is meant to
// be folded into a shared package later.

var jobKind = batchv1.SchemeGroupVersion.WithKind("Job")

// podControl creates and deletes the Pods of Jobs, recording the events
// kube-controller-manager's pod control records on the owner.
type podControl struct {
	client   kubernetes.Interface
	recorder events.EventRecorder
}

// podFromTemplate is the Pod a controller creates from template: its
// labels, annotations, finalizers and spec, owned by owner.
func podFromTemplate(template *corev1.PodTemplateSpec, owner metav1.Object, generateName string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Labels:          copyMap(template.Labels),
			Annotations:     copyMap(template.Annotations),
			Finalizers:      append([]string(nil), template.Finalizers...),
			GenerateName:    generateName,
			Namespace:       owner.GetNamespace(),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, jobKind)},
		},
	}
	pod.Spec = *template.Spec.DeepCopy()
	return pod
}

func copyMap(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func (pc podControl) create(ctx context.Context, job *batchv1.Job, template *corev1.PodTemplateSpec, generateName string) error {
	pod := podFromTemplate(template, job, generateName)
	if len(pod.Labels) == 0 {
		return fmt.Errorf("unable to create pods, no labels")
	}
	created, err := pc.client.CoreV1().Pods(job.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		pc.recorder.Eventf(job, nil, corev1.EventTypeWarning, "FailedCreate", "Create", "Error creating: %v", err)
		return err
	}
	pc.recorder.Eventf(job, created, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created pod: %v", created.Name)
	return nil
}

func (pc podControl) delete(ctx context.Context, job *batchv1.Job, pod *corev1.Pod) error {
	err := pc.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})
	if err != nil {
		pc.recorder.Eventf(job, pod, corev1.EventTypeWarning, "FailedDelete", "Delete", "Error deleting: %v", err)
		return err
	}
	pc.recorder.Eventf(job, pod, corev1.EventTypeNormal, "SuccessfulDelete", "Delete", "Deleted pod: %v", pod.Name)
	return nil
}

// removeFinalizer drops the job-tracking finalizer with a strategic merge
// patch, as upstream does, so other finalizers are left alone.
func (pc podControl) removeFinalizer(ctx context.Context, pod *corev1.Pod) error {
	patch := []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["` + batchv1.JobTrackingFinalizer + `"]}}`)
	_, err := pc.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}

// expectationsTTL is how long unobserved creations and deletions hold a
// controller back before it acts anyway, upstream's five minutes.
const expectationsTTL = 5 * time.Minute

type expectation struct {
	add, del int
	at       time.Time
}

// expectations counts, per Job key, the Pod creations and deletions the
// informer has still to show, and the Pods whose finalizer removal it has
// still to show.
type expectations struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	pods  map[string]*expectation
	fins  map[string]sets.Set[types.UID]
}

func newExpectations(clk clock.PassiveClock) *expectations {
	return &expectations{clock: clk, pods: map[string]*expectation{}, fins: map[string]sets.Set[types.UID]{}}
}

func (e *expectations) satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.pods[key]
	if !ok || (x.add <= 0 && x.del <= 0) {
		return true
	}
	return e.clock.Since(x.at) > expectationsTTL
}

func (e *expectations) expect(key string, add, del int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pods[key] = &expectation{add: add, del: del, at: e.clock.Now()}
}

func (e *expectations) observed(key string, add, del int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.pods[key]; ok {
		x.add -= add
		x.del -= del
	}
}

func (e *expectations) expectFinalizersRemoved(key string, uids []types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fins[key] == nil {
		e.fins[key] = sets.New[types.UID]()
	}
	e.fins[key].Insert(uids...)
}

func (e *expectations) finalizerRemovalObserved(key string, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := e.fins[key]; s != nil {
		s.Delete(uid)
		if s.Len() == 0 {
			delete(e.fins, key)
		}
	}
}

func (e *expectations) expectedFinalizerRemovals(key string) sets.Set[types.UID] {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fins[key].Clone()
}

func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pods, key)
	delete(e.fins, key)
}
