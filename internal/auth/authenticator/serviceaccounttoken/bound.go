package serviceaccounttoken

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

var (
	errInvalidated  = errors.New("service account token has been invalidated")
	errNotValidated = errors.New("service account token could not be validated")
	errTokenExpired = errors.New("service account token has expired")
)

// validateBound checks a bound token's times and that the service account
// and the object the token is bound to still exist with the same UIDs.
func (a *tokenAuthenticator) validateBound(ctx context.Context, public *jwt.Claims, k *serviceaccount.KubernetesClaims) (*saInfo, error) {
	now := a.now()
	switch err := public.ValidateWithLeeway(jwt.Expected{Time: now}, jwt.DefaultLeeway); {
	case err == nil:
	case errors.Is(err, jwt.ErrExpired):
		return nil, errTokenExpired
	default:
		return nil, errNotValidated
	}
	if k == nil || k.Namespace == "" || k.ServiceAccount.Name == "" || a.getter == nil {
		return nil, errNotValidated
	}
	// objects whose deletion started within the leeway still count, so a
	// token is not cut off by clock skew between servers
	deletedBefore := now.Add(-jwt.DefaultLeeway)
	ns, saRef := k.Namespace, k.ServiceAccount

	sa, err := a.getter.GetServiceAccount(ctx, ns, saRef.Name)
	if err != nil {
		return nil, err
	}
	if string(sa.UID) != saRef.UID {
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, saRef.UID)
	}
	if deleted(sa.DeletionTimestamp, deletedBefore) {
		return nil, fmt.Errorf("service account %s/%s has been deleted", ns, saRef.Name)
	}

	info := &saInfo{namespace: ns, name: saRef.Name, uid: saRef.UID, credentialID: credentialIDForJTI(public.ID)}
	if ref := k.Secret; ref != nil {
		secret, err := a.getter.GetSecret(ctx, ns, ref.Name)
		if err != nil {
			return nil, errInvalidated
		}
		if string(secret.UID) != ref.UID {
			return nil, fmt.Errorf("secret UID (%s) does not match service account secret ref claim (%s)", secret.UID, ref.UID)
		}
		if deleted(secret.DeletionTimestamp, deletedBefore) {
			return nil, errInvalidated
		}
	}
	if ref := k.Pod; ref != nil {
		pod, err := a.getter.GetPod(ctx, ns, ref.Name)
		if err != nil {
			return nil, errInvalidated
		}
		if string(pod.UID) != ref.UID {
			return nil, fmt.Errorf("pod UID (%s) does not match service account pod ref claim (%s)", pod.UID, ref.UID)
		}
		if deleted(pod.DeletionTimestamp, deletedBefore) {
			return nil, errInvalidated
		}
		info.podName, info.podUID = ref.Name, ref.UID
	}
	if ref := k.Node; ref != nil {
		if k.Pod != nil {
			// the node of a pod-bound token only informs; the pod is the binding
			info.nodeName, info.nodeUID = ref.Name, ref.UID
		} else {
			node, err := a.getter.GetNode(ctx, ref.Name)
			if err != nil {
				return nil, errInvalidated
			}
			if string(node.UID) != ref.UID {
				return nil, fmt.Errorf("node UID (%s) does not match service account node ref claim (%s)", node.UID, ref.UID)
			}
			if deleted(node.DeletionTimestamp, deletedBefore) {
				return nil, errInvalidated
			}
			info.nodeName, info.nodeUID = ref.Name, string(node.UID)
		}
	}
	return info, nil
}

func deleted(ts *metav1.Time, before time.Time) bool {
	return ts != nil && ts.Time.Before(before)
}
