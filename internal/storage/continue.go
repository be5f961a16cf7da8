package storage

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// continueAPIVersion versions the continue token so its format can change.
const continueAPIVersion = "meta.k8s.io/v1"

// continueToken is the JSON inside a continue token; the field names are the
// upstream wire format, so a token survives a switch between kapi and
// kube-apiserver reading the same etcd.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// EncodeContinue builds the continue token for a list that resumes at key
// (usually the last returned key plus "\x00") at revision rv. keyPrefix is the
// list's key prefix (ending in "/"); the token stores key relative to it.
func EncodeContinue(key, keyPrefix string, rv int64) (string, error) {
	rel, ok := strings.CutPrefix(key, keyPrefix)
	if !ok || rel == "" {
		return "", fmt.Errorf("continue key %q is not below prefix %q", key, keyPrefix)
	}
	data, err := json.Marshal(continueToken{APIVersion: continueAPIVersion, ResourceVersion: rv, StartKey: rel})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(data), nil
}

// DecodeContinue parses a token from EncodeContinue and returns the absolute
// key to resume from and the revision to read at. A negative revision means
// "read at the latest revision" (upstream issues such tokens after a
// compaction). Errors have code ErrCodeInvalidContinue.
func DecodeContinue(token, keyPrefix string) (fromKey string, rv int64, err error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, invalidContinue("continue key is not valid: %v", err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", 0, invalidContinue("continue key is not valid: %v", err)
	}
	if c.APIVersion != continueAPIVersion {
		return "", 0, invalidContinue("continue key is not valid: server does not recognize this encoded version %q", c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", 0, invalidContinue("continue key is not valid: incorrect encoded start resourceVersion (version %s)", continueAPIVersion)
	}
	if c.StartKey == "" {
		return "", 0, invalidContinue("continue key is not valid: encoded start key empty (version %s)", continueAPIVersion)
	}
	// A client must not escape the list's prefix with "..": cleaning the
	// key as an absolute path must leave it unchanged.
	abs := c.StartKey
	if !strings.HasPrefix(abs, "/") {
		abs = "/" + abs
	}
	if path.Clean(abs) != abs {
		return "", 0, invalidContinue("continue key is not valid: %q", c.StartKey)
	}
	return keyPrefix + abs[1:], c.ResourceVersion, nil
}

func invalidContinue(format string, args ...any) error {
	return &Error{Code: ErrCodeInvalidContinue, Message: fmt.Sprintf(format, args...)}
}
