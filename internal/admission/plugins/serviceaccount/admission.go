// Package serviceaccount is the ServiceAccount admission plugin: a pod runs
// as a service account that exists (the namespace's "default" unless it
// names one), gets the account's image pull secrets, and, unless the pod or
// the account opts out, a projected kube-api-access-<random> volume with a
// bound token, the cluster CA and its namespace, mounted read-only in
// every container at /var/run/secrets/kubernetes.io/serviceaccount.
package serviceaccount

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

const (
	// PluginName is the name used by --enable-admission-plugins.
	PluginName = "ServiceAccount"
	// DefaultServiceAccountName is the account of a pod that names none.
	DefaultServiceAccountName = "default"
	// EnforceMountableSecretsAnnotation on an account set to "true" limits
	// its pods to the secrets the account lists.
	EnforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"
	// VolumeNamePrefix starts the name of the token volume.
	VolumeNamePrefix = "kube-api-access"
	// DefaultAPITokenMountPath is where every container finds the token.
	DefaultAPITokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// TokenExpirationSeconds is the projected token's lifetime: upstream's
	// "warn only" 1h+7s, which kubelets refresh long before it ends.
	TokenExpirationSeconds int64 = 3607
	// RootCAConfigMap is the config map holding the cluster's CA in each namespace.
	RootCAConfigMap = "kube-root-ca.crt"
)

// Getter reads a service account from storage, past the informer's cache.
type Getter func(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)

// Options configure the plugin.
type Options struct {
	// Lister is the shared informer's lister; Get is the live read used
	// when the lister does not have the account (yet).
	Lister corev1listers.ServiceAccountLister
	Get    Getter
	// DefaultAttempts is how many live reads the "default" account gets
	// (its controller may be creating it right now); upstream's 10 when 0.
	DefaultAttempts int
	// RetryInterval between them; a random 100–200 ms when 0.
	RetryInterval time.Duration
	// GenerateName makes the token volume's name from its prefix; a
	// random 5-character suffix when nil.
	GenerateName func(prefix string) string
}

// Plugin is the ServiceAccount admission plugin.
type Plugin struct {
	opts Options
}

var _ admission.Interface = (*Plugin)(nil)

// New returns the plugin.
func New(o Options) *Plugin {
	if o.DefaultAttempts == 0 {
		o.DefaultAttempts = 10
	}
	if o.RetryInterval == 0 {
		o.RetryInterval = time.Duration(100+rand.IntN(100)) * time.Millisecond
	}
	if o.GenerateName == nil {
		o.GenerateName = func(prefix string) string { return prefix + utilrand.String(5) }
	}
	return &Plugin{opts: o}
}

// Admit defaults the account of a new pod and mounts its token.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod, ok := podutil.IsPod(a, "ephemeralcontainers")
	if !ok || a.Operation != admission.Create {
		return nil
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		// The kubelet deletes a mirror pod whose spec it did not write:
		// it is checked, never changed.
		return p.Validate(ctx, a)
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultServiceAccountName
	}
	sa, err := p.lookup(ctx, a, pod)
	if err != nil {
		return err
	}
	if automount(sa, pod) {
		p.mountToken(pod)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 {
		pod.Spec.ImagePullSecrets = make([]corev1.LocalObjectReference, len(sa.ImagePullSecrets))
		for i, s := range sa.ImagePullSecrets {
			pod.Spec.ImagePullSecrets[i].Name = s.Name
		}
	}
	return p.Validate(ctx, a)
}

// Validate checks what a new pod (or new ephemeral containers) reference.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod, ok := podutil.IsPod(a, "ephemeralcontainers")
	if !ok {
		return nil
	}
	if a.Operation == admission.Update && a.Subresource == "ephemeralcontainers" {
		return p.validateEphemeral(ctx, a, pod)
	}
	if a.Operation != admission.Create {
		return nil
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return validateMirror(a, pod)
	}
	if pod.Spec.ServiceAccountName == "" {
		return podutil.Forbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pod.Name))
	}
	sa, err := p.lookup(ctx, a, pod)
	if err != nil {
		return err
	}
	if enforceMountable(sa) {
		if err := limitSecretReferences(sa, pod); err != nil {
			return podutil.Forbidden(a, err)
		}
	}
	return nil
}

func (p *Plugin) validateEphemeral(ctx context.Context, a *admission.Attributes, pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName == "" {
		return podutil.Forbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pod.Name))
	}
	sa, err := p.lookup(ctx, a, pod)
	if err != nil {
		return err
	}
	if !enforceMountable(sa) {
		return nil
	}
	allowed := mountableSecrets(sa)
	for _, c := range pod.Spec.EphemeralContainers {
		if err := checkEnv("ephemeral container", c.Name, c.Env, c.EnvFrom, allowed, sa.Name); err != nil {
			return podutil.Forbidden(a, err)
		}
	}
	return nil
}

// lookup finds the pod's account, refusing the pod as upstream does when
// it does not exist.
func (p *Plugin) lookup(ctx context.Context, a *admission.Attributes, pod *corev1.Pod) (*corev1.ServiceAccount, error) {
	sa, err := p.serviceAccount(ctx, a.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		return nil, podutil.Forbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, pod.Spec.ServiceAccountName, err))
	}
	return sa, nil
}

// serviceAccount reads the account from the lister, then from storage: a
// pod created right after its account must not fail because the informer
// lags. The default account gets several tries, as its controller creates
// it with the namespace.
func (p *Plugin) serviceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	if p.opts.Lister != nil {
		sa, err := p.opts.Lister.ServiceAccounts(namespace).Get(name)
		if err == nil {
			return sa, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	attempts := 1
	if name == DefaultServiceAccountName {
		attempts = p.opts.DefaultAttempts
	}
	for i := 0; i < attempts && p.opts.Get != nil; i++ {
		if i > 0 {
			t := time.NewTimer(p.opts.RetryInterval)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		}
		sa, err := p.opts.Get(ctx, namespace, name)
		if err == nil {
			return sa, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	// upstream names the resource in the singular here
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccount"}, name)
}

// automount: the pod's choice wins, then the account's, then true.
func automount(sa *corev1.ServiceAccount, pod *corev1.Pod) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}

// mountToken adds the token volume (unless a kube-api-access- volume
// exists) and mounts it in every init and regular container that has
// nothing mounted at the token path yet.
func (p *Plugin) mountToken(pod *corev1.Pod) {
	name, has := "", false
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, VolumeNamePrefix+"-") {
			name, has = v.Name, true
			break
		}
	}
	if name == "" {
		name = p.opts.GenerateName(VolumeNamePrefix + "-")
	}
	mount := corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: DefaultAPITokenMountPath}
	needed := false
	for _, c := range podutil.Containers(&pod.Spec) {
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || m.MountPath == DefaultAPITokenMountPath
		}
		if !mounted {
			c.VolumeMounts = append(c.VolumeMounts, mount)
			needed = true
		}
	}
	if needed && !has {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
			Name:         name,
			VolumeSource: corev1.VolumeSource{Projected: TokenVolumeSource()},
		})
	}
}

// TokenVolumeSource is the projected volume upstream mounts: a bound
// token, the cluster CA and the pod's namespace.
func TokenVolumeSource() *corev1.ProjectedVolumeSource {
	mode := corev1.ProjectedVolumeSourceDefaultMode
	expiration := TokenExpirationSeconds
	return &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &expiration}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMap},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path:     "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
			}}}},
		},
	}
}

func enforceMountable(sa *corev1.ServiceAccount) bool {
	v, ok := sa.Annotations[EnforceMountableSecretsAnnotation]
	if !ok {
		return false
	}
	b, _ := strconv.ParseBool(v)
	return b
}
