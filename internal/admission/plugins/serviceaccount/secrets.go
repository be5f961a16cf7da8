package serviceaccount

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

func mountableSecrets(sa *corev1.ServiceAccount) map[string]bool {
	out := map[string]bool{}
	for _, s := range sa.Secrets {
		out[s.Name] = true
	}
	return out
}

// limitSecretReferences refuses a pod that uses a secret its account does
// not list (volumes, env of init and regular containers, pull secrets),
// with upstream's messages.
func limitSecretReferences(sa *corev1.ServiceAccount, pod *corev1.Pod) error {
	allowed := mountableSecrets(sa)
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil && !allowed[v.Secret.SecretName] {
			return fmt.Errorf("volume with secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", v.Secret.SecretName, sa.Name)
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if err := checkEnv("init container", c.Name, c.Env, c.EnvFrom, allowed, sa.Name); err != nil {
			return err
		}
	}
	for _, c := range pod.Spec.Containers {
		if err := checkEnv("container", c.Name, c.Env, c.EnvFrom, allowed, sa.Name); err != nil {
			return err
		}
	}
	pull := map[string]bool{}
	for _, s := range sa.ImagePullSecrets {
		pull[s.Name] = true
	}
	for i, ref := range pod.Spec.ImagePullSecrets {
		if !pull[ref.Name] {
			return fmt.Errorf(`imagePullSecrets[%d].name="%s" is not allowed because service account %s does not reference that imagePullSecret`, i, ref.Name, sa.Name)
		}
	}
	return nil
}

func checkEnv(kind, container string, env []corev1.EnvVar, envFrom []corev1.EnvFromSource, allowed map[string]bool, account string) error {
	for _, e := range env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && !allowed[e.ValueFrom.SecretKeyRef.Name] {
			return fmt.Errorf("%s %s with envVar %s referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", kind, container, e.Name, e.ValueFrom.SecretKeyRef.Name, account)
		}
	}
	for _, e := range envFrom {
		if e.SecretRef != nil && !allowed[e.SecretRef.Name] {
			return fmt.Errorf("%s %s with envFrom referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", kind, container, e.SecretRef.Name, account)
		}
	}
	return nil
}

// validateMirror: a pod the kubelet mirrors from a static manifest may
// not use the API's identities or secrets.
func validateMirror(a *admission.Attributes, pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName != "" {
		return podutil.Forbidden(a, errors.New("a mirror pod may not reference service accounts"))
	}
	if referencesSecrets(pod) {
		return podutil.Forbidden(a, errors.New("a mirror pod may not reference secrets"))
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.ServiceAccountToken != nil {
				return podutil.Forbidden(a, errors.New("a mirror pod may not use ServiceAccountToken volume projections"))
			}
		}
	}
	return nil
}

// referencesSecrets tells whether any part of the pod names a secret:
// pull secrets, container environment (ephemeral containers too) and every
// volume source that takes a secret.
func referencesSecrets(pod *corev1.Pod) bool {
	if len(pod.Spec.ImagePullSecrets) > 0 {
		return true
	}
	envRefs := func(env []corev1.EnvVar, from []corev1.EnvFromSource) bool {
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				return true
			}
		}
		for _, e := range from {
			if e.SecretRef != nil {
				return true
			}
		}
		return false
	}
	for _, c := range podutil.Containers(&pod.Spec) {
		if envRefs(c.Env, c.EnvFrom) {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if envRefs(c.Env, c.EnvFrom) {
			return true
		}
	}
	for _, v := range pod.Spec.Volumes {
		if volumeReferencesSecret(&v.VolumeSource) {
			return true
		}
	}
	return false
}

func volumeReferencesSecret(s *corev1.VolumeSource) bool {
	switch {
	case s.Secret != nil, s.AzureFile != nil:
		return true
	case s.CephFS != nil && s.CephFS.SecretRef != nil,
		s.Cinder != nil && s.Cinder.SecretRef != nil,
		s.FlexVolume != nil && s.FlexVolume.SecretRef != nil,
		s.RBD != nil && s.RBD.SecretRef != nil,
		s.ScaleIO != nil && s.ScaleIO.SecretRef != nil,
		s.ISCSI != nil && s.ISCSI.SecretRef != nil,
		s.StorageOS != nil && s.StorageOS.SecretRef != nil,
		s.CSI != nil && s.CSI.NodePublishSecretRef != nil:
		return true
	case s.Projected != nil:
		for _, p := range s.Projected.Sources {
			if p.Secret != nil {
				return true
			}
		}
	}
	return false
}
