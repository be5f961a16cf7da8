package oidc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// credentialIDKey is the extra key that names the credential (the jti).
const credentialIDKey = "authentication.kubernetes.io/credential-id"

// claims are a verified token's claims, decoded one at a time.
type claims map[string]json.RawMessage

var errClaimNotPresent = errors.New("claim not present")

func (c claims) unmarshal(name string, v any) error {
	raw, ok := c[name]
	if !ok {
		return errClaimNotPresent
	}
	return json.Unmarshal(raw, v)
}

func (c claims) has(name string) bool {
	_, ok := c[name]
	return ok
}

// stringOrList accepts a group claim written as one string (a "role")
// or as a list.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*s = list
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*s = []string{one}
	return nil
}

func (a *tokenAuthenticator) userInfo(c claims) (*user.DefaultInfo, error) {
	var name string
	if err := c.unmarshal(a.usernameClaim, &name); err != nil {
		return nil, fmt.Errorf("oidc: parse username claims %q: %v", a.usernameClaim, err)
	}
	if a.usernameClaim == "email" && c.has("email_verified") {
		// an address the provider has not verified may belong to anyone
		var verified bool
		if err := c.unmarshal("email_verified", &verified); err != nil {
			return nil, fmt.Errorf("oidc: parse 'email_verified' claim: %v", err)
		}
		if !verified {
			return nil, errors.New("oidc: email not verified")
		}
	}
	info := &user.DefaultInfo{Name: a.usernamePrefix + name}

	if a.groupsClaim != "" && c.has(a.groupsClaim) {
		var groups stringOrList
		if err := c.unmarshal(a.groupsClaim, &groups); err != nil {
			return nil, fmt.Errorf("oidc: parse groups claim %q: %w", a.groupsClaim, err)
		}
		for i := range groups {
			groups[i] = a.groupsPrefix + groups[i]
		}
		info.Groups = groups
	}

	var jti string
	if c.unmarshal("jti", &jti) == nil && jti != "" {
		info.Extra = map[string][]string{credentialIDKey: {"JTI=" + jti}}
	}
	return info, nil
}

// checkRequiredClaims holds the token to --oidc-required-claim; only
// string values can match.
func (a *tokenAuthenticator) checkRequiredClaims(c claims) error {
	for claim, want := range a.requiredClaims {
		if !c.has(claim) {
			return fmt.Errorf("oidc: required claim %s not present in ID token", claim)
		}
		var got string
		if err := c.unmarshal(claim, &got); err != nil {
			return fmt.Errorf("oidc: parse claim %s: %w", claim, err)
		}
		if got != want {
			return fmt.Errorf("oidc: required claim %s value does not match. Got = %s, want = %s", claim, got, want)
		}
	}
	return nil
}
