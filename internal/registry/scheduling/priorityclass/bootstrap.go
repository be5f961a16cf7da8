package priorityclass

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// EnsureSystemPriorityClasses creates system-node-critical and
// system-cluster-critical through creater (the priorityclasses storage),
// as kube-apiserver's scheduling/bootstrap-system-priority-classes hook
// does. Classes that already exist are left as they are. It makes one
// attempt; a caller that runs it as a post-start hook retries on error.
func EnsureSystemPriorityClasses(ctx context.Context, creater rest.Creater) error {
	for _, pc := range kapischedulingv1.SystemPriorityClasses() {
		// Upstream creates them through a client, so the API defaults
		// apply; the store does not default.
		kapischedulingv1.SetDefaultsPriorityClass(pc)
		_, err := creater.Create(ctx, pc, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating PriorityClass %s: %w", pc.Name, err)
		}
	}
	return nil
}
