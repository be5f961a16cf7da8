package serviceaccounttoken

import (
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

// The extra keys kube-apiserver sets on service-account users.
const (
	PodNameKey      = "authentication.kubernetes.io/pod-name"
	PodUIDKey       = "authentication.kubernetes.io/pod-uid"
	NodeNameKey     = "authentication.kubernetes.io/node-name"
	NodeUIDKey      = "authentication.kubernetes.io/node-uid"
	CredentialIDKey = "authentication.kubernetes.io/credential-id"
)

const (
	allServiceAccountsGroup   = "system:serviceaccounts"
	serviceAccountGroupPrefix = "system:serviceaccounts:"
)

// saInfo is what a valid token says about its holder.
type saInfo struct {
	namespace, name, uid string
	podName, podUID      string
	nodeName, nodeUID    string
	credentialID         string
}

func (s *saInfo) userInfo() *user.DefaultInfo {
	info := &user.DefaultInfo{
		Name:   serviceaccount.MakeUsername(s.namespace, s.name),
		UID:    s.uid,
		Groups: []string{allServiceAccountsGroup, serviceAccountGroupPrefix + s.namespace},
	}
	extra := map[string][]string{}
	// a pod is named only with its UID, as upstream
	if s.podName != "" && s.podUID != "" {
		extra[PodNameKey] = []string{s.podName}
		extra[PodUIDKey] = []string{s.podUID}
	}
	if s.credentialID != "" {
		extra[CredentialIDKey] = []string{s.credentialID}
	}
	if s.nodeName != "" {
		extra[NodeNameKey] = []string{s.nodeName}
		if s.nodeUID != "" {
			extra[NodeUIDKey] = []string{s.nodeUID}
		}
	}
	if len(extra) > 0 {
		info.Extra = extra
	}
	return info
}

// credentialIDForJTI is how a token's jti appears in the user's extra.
func credentialIDForJTI(jti string) string {
	if jti == "" {
		return ""
	}
	return "JTI=" + jti
}
