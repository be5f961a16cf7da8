package loopback

import (
	"context"
	"slices"
	"testing"
)

func TestLoopbackToken(t *testing.T) {
	a, b := New(), New()
	if a.Token() == b.Token() || len(a.Token()) < 40 {
		t.Fatalf("tokens %q and %q: want two different long random tokens", a.Token(), b.Token())
	}
	resp, ok, err := a.AuthenticateToken(context.Background(), a.Token())
	if err != nil || !ok {
		t.Fatalf("own token: ok=%v err=%v", ok, err)
	}
	u := resp.User
	if u.GetName() != "system:apiserver" || u.GetUID() == "" || !slices.Equal(u.GetGroups(), []string{"system:authenticated", "system:masters"}) {
		t.Errorf("user = %q uid %q groups %q, want system:apiserver with a uid in system:authenticated and system:masters", u.GetName(), u.GetUID(), u.GetGroups())
	}
	// A caller changing what it got does not change the next answer.
	resp.User.GetGroups()[1] = "changed"
	again, _, _ := a.AuthenticateToken(context.Background(), a.Token())
	if again.User.GetGroups()[1] != "system:masters" {
		t.Errorf("groups after a caller's change = %q", again.User.GetGroups())
	}
	for _, other := range []string{b.Token(), "", a.Token()[1:], a.Token() + "x"} {
		if resp, ok, err := a.AuthenticateToken(context.Background(), other); ok || err != nil || resp != nil {
			t.Errorf("token %q: got %v ok=%v err=%v, want no opinion", other, resp, ok, err)
		}
	}
}
