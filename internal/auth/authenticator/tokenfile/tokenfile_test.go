package tokenfile

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNewCSV(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    map[string]*user.DefaultInfo // token → user; tokens not listed must be unknown
		unknown []string
		wantErr string // substring
	}{
		{name: "empty file", content: "", want: map[string]*user.DefaultInfo{}, unknown: []string{"", "x"}},
		{
			name:    "three and four columns",
			content: "token1,user1,uid1\ntoken2,user2,uid2,\"group1,group2\"\n",
			want: map[string]*user.DefaultInfo{
				"token1": {Name: "user1", UID: "uid1"},
				"token2": {Name: "user2", UID: "uid2", Groups: []string{"group1", "group2"}},
			},
			unknown: []string{"token3", "Token1", "token1 ", ""},
		},
		{
			name:    "blank lines skipped, no trailing newline, extra columns ignored",
			content: "\n\ntoken1,user1,uid1,g1,ignored,\"also ignored\"\n\ntoken2,user2,uid2",
			want: map[string]*user.DefaultInfo{
				"token1": {Name: "user1", UID: "uid1", Groups: []string{"g1"}},
				"token2": {Name: "user2", UID: "uid2"},
			},
		},
		{
			name:    "empty group column gives one empty group, as upstream",
			content: "token1,user1,uid1,\n",
			want:    map[string]*user.DefaultInfo{"token1": {Name: "user1", UID: "uid1", Groups: []string{""}}},
		},
		{
			name:    "CRLF line endings",
			content: "token1,user1,uid1\r\ntoken2,user2,,g\r\n",
			want: map[string]*user.DefaultInfo{
				"token1": {Name: "user1", UID: "uid1"},
				"token2": {Name: "user2", Groups: []string{"g"}},
			},
		},
		{
			name:    "empty token skipped",
			content: ",user0,uid0\ntoken1,user1,uid1\n",
			want:    map[string]*user.DefaultInfo{"token1": {Name: "user1", UID: "uid1"}},
			unknown: []string{""},
		},
		{
			name:    "duplicate token: the last one wins",
			content: "token1,user1,uid1\ntoken1,user2,uid2\n",
			want:    map[string]*user.DefaultInfo{"token1": {Name: "user2", UID: "uid2"}},
		},
		{
			name:    "hash is not a comment",
			content: "#token1,user1,uid1\n",
			want:    map[string]*user.DefaultInfo{"#token1": {Name: "user1", UID: "uid1"}},
		},
		{name: "two columns", content: "token1,user1,uid1\ntoken2,user2\n",
			wantErr: "must have at least 3 columns (token, user name, user uid), found 2"},
		{name: "one column", content: "token1\n", wantErr: "found 1"},
		{name: "bad quoting", content: "token1,\"user1,uid1\n", wantErr: "parse error on line 1"},
		{name: "bare quote", content: "tok\"en1,user1,uid1\n", wantErr: "bare \""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.content)
			auth, err := NewCSV(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewCSV() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewCSV() error = %v", err)
			}
			for token, want := range tt.want {
				resp, ok, err := auth.AuthenticateToken(context.Background(), token)
				if !ok || err != nil {
					t.Fatalf("AuthenticateToken(%q) = ok %v, err %v; want ok", token, ok, err)
				}
				if diff := cmp.Diff(want, resp.User); diff != "" {
					t.Errorf("AuthenticateToken(%q) user (-want +got):\n%s", token, diff)
				}
			}
			for _, token := range tt.unknown {
				if resp, ok, err := auth.AuthenticateToken(context.Background(), token); ok || err != nil || resp != nil {
					t.Errorf("AuthenticateToken(%q) = %v, ok %v, err %v; want no opinion", token, resp, ok, err)
				}
			}
		})
	}
}

func TestNewCSVMissingFile(t *testing.T) {
	_, err := NewCSV(filepath.Join(t.TempDir(), "absent.csv"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("NewCSV() error = %v, want not exist", err)
	}
}

// TestWarningsNeverShowTokens checks skipped records are reported by number,
// without the token.
func TestWarningsNeverShowTokens(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	path := writeFile(t, "s3cret,user1,uid1\n,user2,uid2\ns3cret,user3,uid3\n")
	if _, err := NewCSVWithLogger(path, logger); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{"empty token", "record=2", "duplicate token", "record=3"} {
		if !strings.Contains(out, want) {
			t.Errorf("log %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Errorf("log shows the token: %q", out)
	}
}

func TestResponsesAreCopies(t *testing.T) {
	auth, err := NewCSV(writeFile(t, "t,u,id,\"a,b\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := auth.AuthenticateToken(context.Background(), "t")
	first.User.(*user.DefaultInfo).Groups[0] = "system:masters"
	second, _, _ := auth.AuthenticateToken(context.Background(), "t")
	if got := second.User.GetGroups(); !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("groups = %q after a caller changed an earlier response", got)
	}
}

// FuzzTokenFileLine feeds arbitrary file content to the parser: it must not
// panic, must never accept an empty token, and every record it keeps must
// authenticate.
func FuzzTokenFileLine(f *testing.F) {
	for _, s := range []string{
		"token1,user1,uid1", "token2,user2,uid2,\"group1,group2\"", ",u,i", "a,b", "\"a\"\"b\",c,d,e",
		"t,u,i\r\n\r\nt,u2,i2,g", "\"unterminated,u,i", "\xff\xfe,\x00,\n", "t,u,i,\"\n\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		tokens, err := parse(strings.NewReader(content), "fuzz.csv", nil)
		if err != nil {
			return
		}
		if _, ok := tokens[""]; ok {
			t.Fatalf("empty token accepted from %q", content)
		}
		auth := &tokenAuthenticator{tokens: tokens}
		for token, info := range tokens {
			resp, ok, err := auth.AuthenticateToken(context.Background(), token)
			if !ok || err != nil || resp.User.GetName() != info.Name {
				t.Fatalf("token %q from %q: ok %v, err %v", token, content, ok, err)
			}
		}
	})
}

func BenchmarkAuthenticateToken(b *testing.B) {
	var content strings.Builder
	for i := range 1000 {
		content.WriteString("token" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ",user,uid,\"g1,g2\"\n")
	}
	tokens, err := parse(strings.NewReader(content.String()), "bench.csv", nil)
	if err != nil {
		b.Fatal(err)
	}
	auth := &tokenAuthenticator{tokens: tokens}
	ctx := context.Background()
	for b.Loop() {
		if _, ok, _ := auth.AuthenticateToken(ctx, "tokenxxxd"); !ok {
			b.Fatal("not authenticated")
		}
	}
}
