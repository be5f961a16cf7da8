package workload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NewRunID returns a short random id for a run's labels and namespace.
func NewRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// Namespace is where a run works, and whether the run made it.
type Namespace struct {
	Name    string
	RunID   string
	Created bool
}

// SetupNamespace makes sure namespace name exists. An empty name means a
// generated kapi-bench-<run id>. A namespace that exists already is used
// as is and, at cleanup, only the run's own objects are removed from it.
func SetupNamespace(ctx context.Context, cs kubernetes.Interface, name, runID string) (*Namespace, error) {
	ns := &Namespace{Name: name, RunID: runID}
	if name == "" {
		ns.Name = "kapi-bench-" + runID
	} else if _, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{}); err == nil {
		return ns, nil
	} else if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("cannot read namespace %q: %w", name, err)
	}
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name, Labels: map[string]string{LabelKey: runID}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("cannot create namespace %q: %w", ns.Name, err)
	}
	ns.Created = true
	return ns, nil
}

// Cleanup deletes the namespace if the run created it, and otherwise the
// ConfigMaps labelled with the run's id. It does not wait for a
// namespace's contents to go: the server's namespace controller does that.
func (ns *Namespace) Cleanup(ctx context.Context, cs kubernetes.Interface) error {
	if ns.Created {
		err := cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cannot delete namespace %q: %w", ns.Name, err)
		}
		return nil
	}
	cms := cs.CoreV1().ConfigMaps(ns.Name)
	sel := metav1.ListOptions{LabelSelector: LabelKey + "=" + ns.RunID}
	err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
	if err == nil || !apierrors.IsMethodNotSupported(err) {
		if err != nil {
			return fmt.Errorf("cannot delete the bench's configmaps in %q: %w", ns.Name, err)
		}
		return nil
	}
	// A server without deletecollection: one by one.
	list, err := cms.List(ctx, sel)
	if err != nil {
		return fmt.Errorf("cannot list the bench's configmaps in %q: %w", ns.Name, err)
	}
	for _, cm := range list.Items {
		if err := cms.Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cannot delete configmap %q in %q: %w", cm.Name, ns.Name, err)
		}
	}
	return nil
}
