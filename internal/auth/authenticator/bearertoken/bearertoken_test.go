package bearertoken

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

var errRevoked = errors.New("token has been revoked")

// tokens knows "good" (alice) and "revoked" (an error); anything else is
// not its token. It records what it was asked.
type tokens struct{ seen []string }

func (f *tokens) AuthenticateToken(_ context.Context, token string) (*authenticator.Response, bool, error) {
	f.seen = append(f.seen, token)
	switch token {
	case "good":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}, true, nil
	case "revoked":
		return nil, false, errRevoked
	}
	return nil, false, nil
}

type warnings []string

func (w *warnings) AddWarning(_, text string) { *w = append(*w, text) }

func wsProtocol(token string) string {
	return wsProtocolPrefix + base64.RawURLEncoding.EncodeToString([]byte(token))
}

func TestAuthenticateRequest(t *testing.T) {
	wsHeaders := func(protocols ...string) http.Header {
		h := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}
		for _, p := range protocols {
			h.Add(wsProtocolHeader, p)
		}
		return h
	}
	tests := []struct {
		name         string
		header       http.Header
		wantUser     string
		wantErr      error  // matched with errors.Is
		wantErrText  string // or by text
		wantSeen     []string
		wantWarnings []string
		wantProtocol []string // Sec-WebSocket-Protocol afterwards
	}{
		{name: "no header"},
		{name: "empty header", header: http.Header{"Authorization": {""}}},
		{name: "basic auth", header: http.Header{"Authorization": {"Basic YWxpY2U6cHc="}}},
		{name: "scheme only", header: http.Header{"Authorization": {"Bearer"}}},
		{name: "scheme and space", header: http.Header{"Authorization": {"Bearer "}}},
		{name: "extra space before token", header: http.Header{"Authorization": {"Bearer  good"}},
			wantWarnings: []string{spaceWarning}},
		{name: "tab is not a separator", header: http.Header{"Authorization": {"Bearer\tgood"}}},
		{name: "good", header: http.Header{"Authorization": {"Bearer good"}}, wantUser: "alice", wantSeen: []string{"good"}},
		{name: "scheme is case-insensitive", header: http.Header{"Authorization": {"bEaReR good"}}, wantUser: "alice", wantSeen: []string{"good"}},
		{name: "surrounding space trimmed", header: http.Header{"Authorization": {"  Bearer good  "}}, wantUser: "alice", wantSeen: []string{"good"}},
		{name: "text after the token ignored", header: http.Header{"Authorization": {"Bearer good trailing"}}, wantUser: "alice", wantSeen: []string{"good"}},
		{name: "unknown token is a generic error", header: http.Header{"Authorization": {"Bearer nope"}},
			wantErr: errInvalidToken, wantErrText: "invalid bearer token", wantSeen: []string{"nope"}},
		{name: "authenticator error passed on", header: http.Header{"Authorization": {"Bearer revoked"}},
			wantErr: errRevoked, wantSeen: []string{"revoked"}},

		{name: "websocket good", header: wsHeaders(wsProtocol("good"), "v5.channel.k8s.io"),
			wantUser: "alice", wantSeen: []string{"good"}, wantProtocol: []string{"v5.channel.k8s.io"}},
		{name: "websocket protocols over several headers and lists", header: wsHeaders("a, "+wsProtocol("good"), "b"),
			wantUser: "alice", wantSeen: []string{"good"}, wantProtocol: []string{"a,b"}},
		{name: "websocket bad token", header: wsHeaders(wsProtocol("nope"), "b"),
			wantErr: errInvalidToken, wantSeen: []string{"nope"}, wantProtocol: []string{wsProtocol("nope"), "b"}},
		{name: "websocket without another protocol", header: wsHeaders(wsProtocol("good")),
			wantErrText: "missing additional subprotocol", wantProtocol: []string{wsProtocol("good")}},
		{name: "websocket two tokens", header: wsHeaders(wsProtocol("good"), wsProtocol("good"), "b"),
			wantErrText: "multiple base64.bearer.authorization tokens specified", wantProtocol: []string{wsProtocol("good"), wsProtocol("good"), "b"}},
		{name: "websocket bad base64", header: wsHeaders(wsProtocolPrefix+"!!", "b"),
			wantErrText: "invalid base64.bearer.authorization token encoding", wantProtocol: []string{wsProtocolPrefix + "!!", "b"}},
		{name: "websocket padded base64", header: wsHeaders(wsProtocolPrefix+"Zw==", "b"),
			wantErrText: "invalid base64.bearer.authorization token encoding", wantProtocol: []string{wsProtocolPrefix + "Zw==", "b"}},
		{name: "websocket token not UTF-8", header: wsHeaders(wsProtocolPrefix+base64.RawURLEncoding.EncodeToString([]byte{0xff}), "b"),
			wantErrText: "invalid base64.bearer.authorization token", wantProtocol: []string{wsProtocolPrefix + "_w", "b"}},
		{name: "websocket empty token is no opinion", header: wsHeaders(wsProtocolPrefix, "b"), wantProtocol: []string{wsProtocolPrefix, "b"}},
		{name: "token protocol without upgrade is ignored",
			header:       http.Header{http.CanonicalHeaderKey(wsProtocolHeader): {wsProtocol("good"), "b"}},
			wantProtocol: []string{wsProtocol("good"), "b"}},
		{name: "bad header token does not hide a good websocket token",
			header: func() http.Header {
				h := wsHeaders(wsProtocol("good"), "b")
				h.Set("Authorization", "Bearer nope")
				return h
			}(),
			wantUser: "alice", wantSeen: []string{"nope", "good"}, wantProtocol: []string{"b"}},
		{name: "both bad: both errors",
			header: func() http.Header {
				h := wsHeaders(wsProtocol("revoked"), "b")
				h.Set("Authorization", "Bearer nope")
				return h
			}(),
			wantErr: errRevoked, wantSeen: []string{"nope", "revoked"}, wantProtocol: []string{wsProtocol("revoked"), "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/api", nil)
			for k, v := range tt.header {
				req.Header[k] = v
			}
			var warned warnings
			req = req.WithContext(warning.WithRecorder(req.Context(), &warned))
			auth := &tokens{}
			resp, ok, err := New(auth).AuthenticateRequest(req)

			wantErr := tt.wantErr != nil || tt.wantErrText != ""
			if (err != nil) != wantErr {
				t.Fatalf("err = %v, want error %v", err, wantErr)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErrText != "" && err.Error() != tt.wantErrText {
				t.Errorf("err = %q, want %q", err, tt.wantErrText)
			}
			if ok != (tt.wantUser != "") {
				t.Fatalf("ok = %v, want user %q", ok, tt.wantUser)
			}
			if ok && resp.User.GetName() != tt.wantUser {
				t.Errorf("user = %q, want %q", resp.User.GetName(), tt.wantUser)
			}
			if !ok && resp != nil {
				t.Errorf("response %+v without ok", resp)
			}
			if diff := cmp.Diff(tt.wantSeen, auth.seen); diff != "" {
				t.Errorf("tokens checked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, []string(warned)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantProtocol, req.Header.Values(wsProtocolHeader)); diff != "" {
				t.Errorf("Sec-WebSocket-Protocol (-want +got):\n%s", diff)
			}
			if got, want := req.Header.Get("Authorization"), tt.header.Get("Authorization"); got != want {
				t.Errorf("Authorization header changed to %q, want it left as %q for the filter", got, want)
			}
		})
	}
}

// FuzzBearerHeader checks that header parsing never panics, that whatever it
// returns is a non-empty token without spaces taken from the header, and
// that the authenticator hands exactly that token on.
func FuzzBearerHeader(f *testing.F) {
	for _, s := range []string{"", "Bearer", "Bearer ", "Bearer good", "bearer  x", "Basic abc",
		" Bearer a b c ", "Bearer\x00tok", "BEARER \xff\xfe", "Bearer\u00a0x", "Bearer x\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		token, _ := parseAuthorization(value)
		if token != "" {
			if strings.Contains(token, " ") {
				t.Fatalf("parseAuthorization(%q) = %q, contains a space", value, token)
			}
			if !strings.Contains(value, token) {
				t.Fatalf("parseAuthorization(%q) = %q, not from the header", value, token)
			}
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.Header["Authorization"] = []string{value}
		auth := &tokens{}
		_, ok, err := New(auth).AuthenticateRequest(req)
		if ok != (token == "good") {
			t.Fatalf("ok = %v for token %q", ok, token)
		}
		if token == "" && (err != nil || len(auth.seen) != 0) {
			t.Fatalf("no token, yet err %v and tokens checked %q", err, auth.seen)
		}
		if token != "" && (len(auth.seen) != 1 || auth.seen[0] != token) {
			t.Fatalf("checked %q, want [%q]", auth.seen, token)
		}
	})
}

// FuzzWebSocketProtocol checks the subprotocol parser never panics and only
// returns a token together with another protocol.
func FuzzWebSocketProtocol(f *testing.F) {
	for _, s := range []string{"", wsProtocol("good") + ",b", wsProtocol("x"), wsProtocolPrefix + "%%,a",
		wsProtocol("a") + "," + wsProtocol("b"), " , ,", wsProtocolPrefix + "_w,x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		token, others, err := parseProtocols([]string{value})
		if err != nil && (token != "" || others != nil) {
			t.Fatalf("parseProtocols(%q) = %q, %q with error %v", value, token, others, err)
		}
		if token != "" && len(others) == 0 {
			t.Fatalf("parseProtocols(%q) = token without another protocol", value)
		}
	})
}

func BenchmarkAuthenticateRequest(b *testing.B) {
	a := New(authenticator.TokenFunc(func(context.Context, string) (*authenticator.Response, bool, error) {
		return &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}, true, nil
	}))
	req := httptest.NewRequest("GET", "/api", nil)
	req.Header.Set("Authorization", "Bearer 0123456789abcdef0123456789abcdef")
	for b.Loop() {
		if _, ok, _ := a.AuthenticateRequest(req); !ok {
			b.Fatal("not authenticated")
		}
	}
}
