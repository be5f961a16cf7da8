package certificates

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Allow is an authorizer allowing verb on the signers named, recording
// what it was asked.
type Allow map[string]bool

// Authorize allows "verb name" pairs in the map.
func (a Allow) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.APIGroup == "certificates.k8s.io" && attrs.Resource == "signers" && attrs.APIVersion == "*" && a[attrs.Verb+" "+attrs.Name] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func TestIsAuthorizedForSignerName(t *testing.T) {
	u := &user.DefaultInfo{Name: "alice"}
	tests := []struct {
		name  string
		allow Allow
		verb  string
		want  bool
	}{
		{"exact name", Allow{"approve example.com/foo": true}, "approve", true},
		{"domain wildcard", Allow{"approve example.com/*": true}, "approve", true},
		{"other verb", Allow{"sign example.com/foo": true}, "approve", false},
		{"other domain", Allow{"approve other.com/*": true}, "approve", false},
	}
	for _, tt := range tests {
		if got := IsAuthorizedForSignerName(context.Background(), tt.allow, u, tt.verb, "example.com/foo"); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
