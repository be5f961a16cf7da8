// Package alwayspullimages is the AlwaysPullImages admission plugin: every
// container of a new pod, or of an update that brings a new image, pulls
// its image always, so a pod cannot use an image cached on its node
// without the credentials to pull it.
package alwayspullimages

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "AlwaysPullImages"

// Plugin is the AlwaysPullImages admission plugin.
type Plugin struct{}

var _ admission.Interface = Plugin{}

// Admit sets imagePullPolicy Always on every container.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	pod, err := applies(a)
	if pod == nil {
		return err
	}
	visit(&pod.Spec, func(c *corev1.Container, _ *field.Path) { c.ImagePullPolicy = corev1.PullAlways })
	return nil
}

// Validate refuses a container that does not pull always.
func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	pod, err := applies(a)
	if pod == nil {
		return err
	}
	var errs []error
	visit(&pod.Spec, func(c *corev1.Container, p *field.Path) {
		if c.ImagePullPolicy != corev1.PullAlways {
			errs = append(errs, podutil.Forbidden(a, field.NotSupported(p.Child("imagePullPolicy"), c.ImagePullPolicy, []string{string(corev1.PullAlways)})))
		}
	})
	if len(errs) == 1 {
		return errs[0]
	}
	return utilerrors.NewAggregate(errs)
}

// applies returns the pod of a pod create, or of an update that brings
// an image no container had before.
func applies(a *admission.Attributes) (*corev1.Pod, error) {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil, nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	if a.Operation == admission.Update {
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return nil, apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
		}
		images := map[string]bool{}
		visit(&old.Spec, func(c *corev1.Container, _ *field.Path) { images[c.Image] = true })
		fresh := false
		visit(&pod.Spec, func(c *corev1.Container, _ *field.Path) { fresh = fresh || !images[c.Image] })
		if !fresh {
			return nil, nil
		}
	}
	return pod, nil
}

// visit calls fn with every container and its field path.
func visit(spec *corev1.PodSpec, fn func(*corev1.Container, *field.Path)) {
	base := field.NewPath("spec")
	for i := range spec.InitContainers {
		fn(&spec.InitContainers[i], base.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		fn(&spec.Containers[i], base.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		fn((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), base.Child("ephemeralContainers").Index(i))
	}
}
