package controlplane

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestDeletePropagationThroughClientGo deletes objects with each
// propagation policy through client-go: Orphan and Foreground answer with
// the object kept, marked with the finalizer the garbage collector acts
// on and a deletionTimestamp; resources whose legacy version orphaned by default
// still do; events are never marked.
func TestDeletePropagationThroughClientGo(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = patchNamespace
	policy := func(p metav1.DeletionPropagation) metav1.DeleteOptions {
		return metav1.DeleteOptions{PropagationPolicy: &p}
	}
	orphan := true

	labels := map[string]string{"app": "x"}
	podTemplate := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}, RestartPolicy: corev1.RestartPolicyNever},
	}
	var tests []propagationCase
	configMaps := cs.CoreV1().ConfigMaps(ns)
	cmCase := func(name string, opts metav1.DeleteOptions, want []string) {
		tests = append(tests, propagationCase{
			name: name,
			create: func(n string) error {
				_, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
				return err
			},
			get:     func(n string) (metav1.Object, error) { return configMaps.Get(ctx, n, metav1.GetOptions{}) },
			delete:  deleteReturning(cs.CoreV1().RESTClient(), ns, "configmaps", func() runtime.Object { return &corev1.ConfigMap{} }),
			options: opts, wantFinalizers: want,
		})
	}
	cmCase("configmap-orphan", policy(metav1.DeletePropagationOrphan), []string{metav1.FinalizerOrphanDependents})
	cmCase("configmap-foreground", policy(metav1.DeletePropagationForeground), []string{metav1.FinalizerDeleteDependents})
	cmCase("configmap-background", policy(metav1.DeletePropagationBackground), nil)
	cmCase("configmap-orphandependents", metav1.DeleteOptions{OrphanDependents: &orphan}, []string{metav1.FinalizerOrphanDependents})

	deployments := cs.AppsV1().Deployments(ns)
	jobs := cs.BatchV1().Jobs(ns)
	rcs := cs.CoreV1().ReplicationControllers(ns)
	events := cs.CoreV1().Events(ns)
	deploymentCase := func(name string, opts metav1.DeleteOptions, want []string) propagationCase {
		return propagationCase{
			name: name,
			create: func(n string) error {
				tmpl := podTemplate
				tmpl.Spec.RestartPolicy = corev1.RestartPolicyAlways
				_, err := deployments.Create(ctx, &appsv1.Deployment{
					ObjectMeta: metav1.ObjectMeta{Name: n},
					Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl},
				}, metav1.CreateOptions{})
				return err
			},
			get:     func(n string) (metav1.Object, error) { return deployments.Get(ctx, n, metav1.GetOptions{}) },
			delete:  deleteReturning(cs.AppsV1().RESTClient(), ns, "deployments", func() runtime.Object { return &appsv1.Deployment{} }),
			options: opts, wantFinalizers: want,
		}
	}
	tests = append(tests,
		deploymentCase("deployment-foreground", policy(metav1.DeletePropagationForeground), []string{metav1.FinalizerDeleteDependents}),
		// apps/v1 deletes dependents in the background by default.
		deploymentCase("deployment-default", metav1.DeleteOptions{}, nil),
		propagationCase{
			// batch/v1 Jobs orphan their pods by default, for compatibility.
			name: "job-default",
			create: func(n string) error {
				_, err := jobs.Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: batchv1.JobSpec{Template: podTemplate}}, metav1.CreateOptions{})
				return err
			},
			get:            func(n string) (metav1.Object, error) { return jobs.Get(ctx, n, metav1.GetOptions{}) },
			delete:         deleteReturning(cs.BatchV1().RESTClient(), ns, "jobs", func() runtime.Object { return &batchv1.Job{} }),
			wantFinalizers: []string{metav1.FinalizerOrphanDependents},
		},
		propagationCase{
			// core/v1 ReplicationControllers too.
			name: "replicationcontroller-default",
			create: func(n string) error {
				tmpl := podTemplate
				tmpl.Spec.RestartPolicy = corev1.RestartPolicyAlways
				_, err := rcs.Create(ctx, &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: corev1.ReplicationControllerSpec{Selector: labels, Template: &tmpl}}, metav1.CreateOptions{})
				return err
			},
			get:            func(n string) (metav1.Object, error) { return rcs.Get(ctx, n, metav1.GetOptions{}) },
			delete:         deleteReturning(cs.CoreV1().RESTClient(), ns, "replicationcontrollers", func() runtime.Object { return &corev1.ReplicationController{} }),
			wantFinalizers: []string{metav1.FinalizerOrphanDependents},
		},
		propagationCase{
			// Events are never garbage collected: no finalizer, gone at once.
			name: "event-orphan",
			create: func(n string) error {
				_, err := events.Create(ctx, &corev1.Event{
					ObjectMeta:     metav1.ObjectMeta{Name: n},
					InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"},
					Reason:         "Test", Message: "m", Type: corev1.EventTypeNormal,
					Source: corev1.EventSource{Component: "test"},
				}, metav1.CreateOptions{})
				return err
			},
			get: func(n string) (metav1.Object, error) { return events.Get(ctx, n, metav1.GetOptions{}) },
			delete: func(n string, o metav1.DeleteOptions) (metav1.Object, error) {
				return nil, events.Delete(ctx, n, o)
			},
			options: policy(metav1.DeletePropagationOrphan),
		},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.create(tt.name); err != nil {
				t.Fatal(err)
			}
			deleted, err := tt.delete(tt.name, tt.options)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantFinalizers == nil {
				if _, err := tt.get(tt.name); !apierrors.IsNotFound(err) {
					t.Fatalf("after delete: %v, want NotFound", err)
				}
				return
			}
			// The object as the delete left it: the garbage collector
			// soon removes its finalizer, and then the object.
			got := deleted
			if !slices.Equal(got.GetFinalizers(), tt.wantFinalizers) || got.GetDeletionTimestamp() == nil {
				t.Errorf("finalizers %q deletionTimestamp %v; want %q and a timestamp", got.GetFinalizers(), got.GetDeletionTimestamp(), tt.wantFinalizers)
			}
		})
	}
}

// propagationCase deletes one object of some resource.
type propagationCase struct {
	name   string
	create func(name string) error
	get    func(name string) (metav1.Object, error)
	// delete returns the object the server answered with.
	delete         func(name string, opts metav1.DeleteOptions) (metav1.Object, error)
	options        metav1.DeleteOptions
	wantFinalizers []string // nil: the object is gone
}

// deleteReturning deletes through c and decodes the object the server
// returns (the object left with its finalizers, when it was not deleted).
func deleteReturning(c rest.Interface, ns, resource string, newObj func() runtime.Object) func(string, metav1.DeleteOptions) (metav1.Object, error) {
	return func(name string, opts metav1.DeleteOptions) (metav1.Object, error) {
		obj := newObj()
		err := c.Delete().Namespace(ns).Resource(resource).Name(name).Body(&opts).Do(context.Background()).Into(obj)
		if err != nil {
			return nil, err
		}
		return obj.(metav1.Object), nil
	}
}

// TestDeleteOptionsValidationThroughClientGo: both orphanDependents and
// propagationPolicy, or an unknown policy, are a 422 as upstream.
func TestDeleteOptionsValidationThroughClientGo(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps(patchNamespace)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	background, sideways := metav1.DeletePropagationBackground, metav1.DeletionPropagation("Sideways")
	for _, tc := range []struct {
		name    string
		options metav1.DeleteOptions
		want    string
	}{
		{"both", metav1.DeleteOptions{OrphanDependents: &yes, PropagationPolicy: &background},
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set`},
		{"unknown", metav1.DeleteOptions{PropagationPolicy: &sideways},
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := cms.Delete(ctx, "x", tc.options)
			if !apierrors.IsInvalid(err) || err.Error() != tc.want {
				t.Errorf("delete: %v, want 422 %q", err, tc.want)
			}
			if err := cms.DeleteCollection(ctx, tc.options, metav1.ListOptions{}); !apierrors.IsInvalid(err) || err.Error() != tc.want {
				t.Errorf("deletecollection: %v, want 422 %q", err, tc.want)
			}
		})
	}
	if _, err := cms.Get(ctx, "x", metav1.GetOptions{}); err != nil {
		t.Fatalf("an invalid delete removed the object: %v", err)
	}
}
