package authorizerfactory

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

func TestAuthorizers(t *testing.T) {
	admin := &user.DefaultInfo{Name: "kapi-admin", Groups: []string{"other", user.SystemPrivilegedGroup}}
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"dev", user.AllAuthenticated}}
	tests := []struct {
		name       string
		authz      authorizer.Authorizer
		user       user.Info
		want       authorizer.Decision
		wantReason string
	}{
		{name: "masters allows a member", authz: NewSystemMasters(), user: admin, want: authorizer.DecisionAllow},
		{name: "masters has no opinion on others", authz: NewSystemMasters(), user: alice, want: authorizer.DecisionNoOpinion},
		{name: "masters has no opinion without a user", authz: NewSystemMasters(), want: authorizer.DecisionNoOpinion},
		{name: "custom groups", authz: NewPrivilegedGroups("dev"), user: alice, want: authorizer.DecisionAllow},
		{name: "no groups allows nobody", authz: NewPrivilegedGroups(), user: admin, want: authorizer.DecisionNoOpinion},
		{name: "always allow", authz: NewAlwaysAllow(), user: alice, want: authorizer.DecisionAllow},
		{name: "always allow without a user", authz: NewAlwaysAllow(), want: authorizer.DecisionAllow},
		{name: "always deny", authz: NewAlwaysDeny(), user: admin, want: authorizer.DecisionNoOpinion, wantReason: "Everything is forbidden."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := authorizer.Attributes{User: tt.user, Verb: "delete", Resource: "pods", ResourceRequest: true}
			d, reason, err := tt.authz.Authorize(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if d != tt.want || reason != tt.wantReason {
				t.Errorf("Authorize() = %v, %q; want %v, %q", d, reason, tt.want, tt.wantReason)
			}
		})
	}
}
