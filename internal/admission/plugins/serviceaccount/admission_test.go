package serviceaccount

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// newPlugin serves cached from the lister and live from storage, and
// counts live reads.
func newPlugin(t testing.TB, cached, live []*corev1.ServiceAccount) (*Plugin, *int) {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, sa := range cached {
		if err := idx.Add(sa); err != nil {
			t.Fatal(err)
		}
	}
	reads := 0
	get := func(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
		reads++
		for _, sa := range live {
			if sa.Namespace == ns && sa.Name == name {
				return sa, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, name)
	}
	return New(Options{
		Lister: corev1listers.NewServiceAccountLister(idx), Get: get,
		DefaultAttempts: 3, RetryInterval: 1,
		GenerateName: func(prefix string) string { return prefix + "abcde" },
	}), &reads
}

func account(name string, mut ...func(*corev1.ServiceAccount)) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	for _, m := range mut {
		m(sa)
	}
	return sa
}

func create(pod *corev1.Pod) *admission.Attributes {
	return &admission.Attributes{Name: pod.Name, Namespace: "ns", Resource: podsResource, Operation: admission.Create, Object: pod}
}

func basicPod(mut ...func(*corev1.Pod)) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init"}},
			Containers:     []corev1.Container{{Name: "a"}, {Name: "b"}},
		},
	}
	for _, m := range mut {
		m(pod)
	}
	return pod
}

func wantMount(name string) []corev1.VolumeMount {
	return []corev1.VolumeMount{{Name: name, ReadOnly: true, MountPath: DefaultAPITokenMountPath}}
}

// TestAdmitDefaultsAndMounts pins the pod upstream stores: account
// "default", the projected volume exactly as upstream builds it, mounts in
// init and regular containers, and the account's pull secrets.
func TestAdmitDefaultsAndMounts(t *testing.T) {
	p, _ := newPlugin(t, []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) {
		sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
	})}, nil)
	pod := basicPod()
	if err := p.Admit(context.Background(), create(pod)); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ServiceAccountName != "default" {
		t.Errorf("serviceAccountName = %q", pod.Spec.ServiceAccountName)
	}
	mode := int32(420)
	exp := int64(3607)
	wantVolumes := []corev1.Volume{{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &exp}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}}}
	if d := cmp.Diff(wantVolumes, pod.Spec.Volumes); d != "" {
		t.Errorf("volumes (-want +got):\n%s", d)
	}
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		if d := cmp.Diff(wantMount("kube-api-access-abcde"), c.VolumeMounts); d != "" {
			t.Errorf("container %s mounts (-want +got):\n%s", c.Name, d)
		}
	}
	if d := cmp.Diff([]corev1.LocalObjectReference{{Name: "pull"}}, pod.Spec.ImagePullSecrets); d != "" {
		t.Errorf("imagePullSecrets (-want +got):\n%s", d)
	}
}

func TestAdmitCases(t *testing.T) {
	no, yes := ptr.To(false), ptr.To(true)
	tests := []struct {
		name     string
		accounts []*corev1.ServiceAccount
		live     []*corev1.ServiceAccount
		pod      *corev1.Pod
		check    func(t *testing.T, pod *corev1.Pod)
		err      string
	}{
		{
			name: "missing default account", pod: basicPod(),
			err: `pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found`,
		},
		{
			name: "missing named account", accounts: []*corev1.ServiceAccount{account("default")},
			pod: basicPod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "robot"; p.Name = ""; p.GenerateName = "web-" }),
			err: `pods "web-" is forbidden: error looking up service account ns/robot: serviceaccount "robot" not found`,
		},
		{
			name: "account found live when the lister misses it", live: []*corev1.ServiceAccount{account("robot")},
			pod: basicPod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "robot" }),
			check: func(t *testing.T, pod *corev1.Pod) {
				if len(pod.Spec.Volumes) != 1 {
					t.Errorf("volumes = %v", pod.Spec.Volumes)
				}
			},
		},
		{
			name: "pod opts out", accounts: []*corev1.ServiceAccount{account("default")},
			pod: basicPod(func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = no }),
			check: func(t *testing.T, pod *corev1.Pod) {
				if len(pod.Spec.Volumes) != 0 || len(pod.Spec.Containers[0].VolumeMounts) != 0 {
					t.Errorf("token mounted: %v", pod.Spec)
				}
			},
		},
		{
			name: "account opts out", accounts: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) { sa.AutomountServiceAccountToken = no })},
			pod: basicPod(),
			check: func(t *testing.T, pod *corev1.Pod) {
				if len(pod.Spec.Volumes) != 0 {
					t.Errorf("token mounted: %v", pod.Spec.Volumes)
				}
			},
		},
		{
			name: "pod opts in over the account", accounts: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) { sa.AutomountServiceAccountToken = no })},
			pod: basicPod(func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = yes }),
			check: func(t *testing.T, pod *corev1.Pod) {
				if len(pod.Spec.Volumes) != 1 {
					t.Errorf("volumes = %v", pod.Spec.Volumes)
				}
			},
		},
		{
			name: "existing kube-api-access volume and mount are kept", accounts: []*corev1.ServiceAccount{account("default")},
			pod: basicPod(func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "kube-api-access-mine"}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "other", MountPath: DefaultAPITokenMountPath}}
			}),
			check: func(t *testing.T, pod *corev1.Pod) {
				if len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].Projected != nil {
					t.Errorf("volumes = %v", pod.Spec.Volumes)
				}
				if d := cmp.Diff([]corev1.VolumeMount{{Name: "other", MountPath: DefaultAPITokenMountPath}}, pod.Spec.Containers[0].VolumeMounts); d != "" {
					t.Errorf("container a (-want +got):\n%s", d)
				}
				if d := cmp.Diff(wantMount("kube-api-access-mine"), pod.Spec.Containers[1].VolumeMounts); d != "" {
					t.Errorf("container b (-want +got):\n%s", d)
				}
			},
		},
		{
			name: "pod's own pull secrets win", accounts: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) {
				sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "sa"}}
			})},
			pod: basicPod(func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "mine"}} }),
			check: func(t *testing.T, pod *corev1.Pod) {
				if d := cmp.Diff([]corev1.LocalObjectReference{{Name: "mine"}}, pod.Spec.ImagePullSecrets); d != "" {
					t.Error(d)
				}
			},
		},
		{
			name: "mirror pod with an account", accounts: []*corev1.ServiceAccount{account("default")},
			pod: basicPod(func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
				p.Spec.ServiceAccountName = "default"
			}),
			err: `pods "p" is forbidden: a mirror pod may not reference service accounts`,
		},
		{
			name: "mirror pod with a secret", pod: basicPod(func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}}
			}),
			err: `pods "p" is forbidden: a mirror pod may not reference secrets`,
		},
		{
			name: "mirror pod with a token projection", pod: basicPod(func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
				p.Spec.Volumes = []corev1.Volume{{Name: "t", VolumeSource: corev1.VolumeSource{Projected: TokenVolumeSource()}}}
			}),
			err: `pods "p" is forbidden: a mirror pod may not use ServiceAccountToken volume projections`,
		},
		{
			name: "mirror pod is left alone", pod: basicPod(func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"} }),
			check: func(t *testing.T, pod *corev1.Pod) {
				if pod.Spec.ServiceAccountName != "" || len(pod.Spec.Volumes) != 0 {
					t.Errorf("mirror pod changed: %v", pod.Spec)
				}
			},
		},
		{
			name: "enforced mountable secrets refuse an unlisted volume", accounts: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) {
				sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
			})},
			pod: basicPod(func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "top"}}}}
			}),
			err: `pods "p" is forbidden: volume with secret.secretName="top" is not allowed because service account default does not reference that secret`,
		},
		{
			name: "enforced mountable secrets refuse an init container env", accounts: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) {
				sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
			})},
			pod: basicPod(func(p *corev1.Pod) {
				p.Spec.InitContainers[0].Env = []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "top"}, Key: "k"}}}}
			}),
			err: `pods "p" is forbidden: init container init with envVar E referencing secret.secretName="top" is not allowed because service account default does not reference that secret`,
		},
		{
			name: "enforced mountable secrets refuse an unlisted pull secret", accounts: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) {
				sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
			})},
			pod: basicPod(func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}} }),
			err: `pods "p" is forbidden: imagePullSecrets[0].name="pull" is not allowed because service account default does not reference that imagePullSecret`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newPlugin(t, tt.accounts, tt.live)
			err := p.Admit(context.Background(), create(tt.pod))
			if tt.err != "" {
				if err == nil || !apierrors.IsForbidden(err) || err.Error() != tt.err {
					t.Fatalf("error:\n got %v\nwant %s (403)", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, tt.pod)
			}
		})
	}
}

// TestDefaultAccountIsRetried: the default account gets several live
// reads (its controller may be creating it); a named one gets one.
func TestDefaultAccountIsRetried(t *testing.T) {
	p, reads := newPlugin(t, nil, nil)
	_ = p.Admit(context.Background(), create(basicPod()))
	if *reads != 3 {
		t.Errorf("default: %d live reads, want 3", *reads)
	}
	p, reads = newPlugin(t, nil, nil)
	_ = p.Admit(context.Background(), create(basicPod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "robot" })))
	if *reads != 1 {
		t.Errorf("named: %d live reads, want 1", *reads)
	}
}

func TestValidateOtherOperations(t *testing.T) {
	enforced := account("default", func(sa *corev1.ServiceAccount) {
		sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
	})
	withSecretEnv := func(p *corev1.Pod) {
		p.Spec.ServiceAccountName = "default"
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: "debug", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "top"}}}},
		}}}
	}
	tests := []struct {
		name  string
		attrs admission.Attributes
		err   string
	}{
		{"ephemeral container with an unlisted secret",
			admission.Attributes{Name: "p", Namespace: "ns", Resource: podsResource, Subresource: "ephemeralcontainers", Operation: admission.Update, Object: basicPod(withSecretEnv)},
			`pods "p" is forbidden: ephemeral container debug with envFrom referencing secret.secretName="top" is not allowed because service account default does not reference that secret`},
		{"ephemeral containers of a pod without an account",
			admission.Attributes{Name: "p", Namespace: "ns", Resource: podsResource, Subresource: "ephemeralcontainers", Operation: admission.Update, Object: basicPod()},
			`pods "p" is forbidden: no service account specified for pod ns/p`},
		{"plain update is not checked",
			admission.Attributes{Name: "p", Namespace: "ns", Resource: podsResource, Operation: admission.Update, Object: basicPod(withSecretEnv)}, ""},
		{"status is not checked",
			admission.Attributes{Name: "p", Namespace: "ns", Resource: podsResource, Subresource: "status", Operation: admission.Create, Object: basicPod()}, ""},
		{"create without an account (a later plugin cleared it)",
			admission.Attributes{Name: "p", Namespace: "ns", Resource: podsResource, Operation: admission.Create, Object: basicPod()},
			`pods "p" is forbidden: no service account specified for pod ns/p`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newPlugin(t, []*corev1.ServiceAccount{enforced}, nil)
			err := p.Validate(context.Background(), &tt.attrs)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
			}
		})
	}
}
