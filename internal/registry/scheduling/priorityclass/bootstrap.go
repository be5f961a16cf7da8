package priorityclass

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedulingv1client "k8s.io/client-go/kubernetes/typed/scheduling/v1"

	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
)

// EnsureSystemPriorityClasses creates system-node-critical and
// system-cluster-critical through client (the loopback client), as
// kube-apiserver's scheduling/bootstrap-system-priority-classes hook
// does: through the API, so defaults and managed fields are a create's.
// Classes that already exist are left as they are; exists, when not nil,
// is asked first (the server reads its watch cache rather than making a
// request per class on every start), and a class it does not find is
// looked up through client. It makes one attempt; a caller that runs it
// as a post-start hook retries on error.
func EnsureSystemPriorityClasses(ctx context.Context, exists func(ctx context.Context, name string) bool, client schedulingv1client.PriorityClassInterface) error {
	for _, pc := range kapischedulingv1.SystemPriorityClasses() {
		if exists != nil && exists(ctx, pc.Name) {
			continue
		}
		_, err := client.Get(ctx, pc.Name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading PriorityClass %s: %w", pc.Name, err)
		}
		if _, err := client.Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating PriorityClass %s: %w", pc.Name, err)
		}
	}
	return nil
}
