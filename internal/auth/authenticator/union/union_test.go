package union

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// fake answers as configured and counts its calls.
type fake struct {
	name  string
	ok    bool
	err   error
	calls int
}

func (f *fake) AuthenticateRequest(*http.Request) (*authenticator.Response, bool, error) {
	f.calls++
	if !f.ok {
		return nil, false, f.err
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: f.name}}, true, nil
}

var (
	errA = errors.New("bad token")
	errB = errors.New("bad certificate")
)

func TestUnion(t *testing.T) {
	tests := []struct {
		name        string
		chain       []*fake
		failOnError bool
		wantUser    string
		wantErrs    []error
		wantCalls   []int
	}{
		{name: "empty"},
		{name: "all no opinion", chain: []*fake{{}, {}}, wantCalls: []int{1, 1}},
		{name: "first success wins", chain: []*fake{{name: "a", ok: true}, {name: "b", ok: true}}, wantUser: "a", wantCalls: []int{1, 0}},
		{name: "no opinion then success", chain: []*fake{{}, {name: "b", ok: true}}, wantUser: "b", wantCalls: []int{1, 1}},
		{name: "error then success hides the error", chain: []*fake{{err: errA}, {name: "b", ok: true}}, wantUser: "b", wantCalls: []int{1, 1}},
		{name: "errors are joined", chain: []*fake{{err: errA}, {}, {err: errB}}, wantErrs: []error{errA, errB}, wantCalls: []int{1, 1, 1}},
		{name: "fail on error stops", failOnError: true, chain: []*fake{{err: errA}, {name: "b", ok: true}}, wantErrs: []error{errA}, wantCalls: []int{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chain []authenticator.Request
			for _, f := range tt.chain {
				chain = append(chain, f)
			}
			u := New(chain...)
			if tt.failOnError {
				u = NewFailOnError(chain...)
			}
			resp, ok, err := u.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
			if wantOK := tt.wantUser != ""; ok != wantOK {
				t.Fatalf("ok = %v, want %v (err %v)", ok, wantOK, err)
			}
			if ok && resp.User.GetName() != tt.wantUser {
				t.Errorf("user = %q, want %q", resp.User.GetName(), tt.wantUser)
			}
			if (err != nil) != (len(tt.wantErrs) > 0) {
				t.Errorf("err = %v, want %v", err, tt.wantErrs)
			}
			for _, want := range tt.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("err = %v, does not wrap %v", err, want)
				}
			}
			for i, f := range tt.chain {
				if f.calls != tt.wantCalls[i] {
					t.Errorf("authenticator %d called %d times, want %d", i, f.calls, tt.wantCalls[i])
				}
			}
		})
	}
}
