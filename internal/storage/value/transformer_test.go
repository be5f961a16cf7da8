package value

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// tagT is a test transformer: it appends its tag on write and insists on it
// on read.
type tagT struct {
	tag   string
	stale bool
}

func (t tagT) TransformFromStorage(_ context.Context, data []byte, _ Context) ([]byte, bool, error) {
	if !bytes.HasSuffix(data, []byte(t.tag)) {
		return nil, false, errors.New("not tagged " + t.tag)
	}
	return bytes.TrimSuffix(data, []byte(t.tag)), t.stale, nil
}

func (t tagT) TransformToStorage(_ context.Context, data []byte, _ Context) ([]byte, error) {
	return append(append([]byte(nil), data...), t.tag...), nil
}

// failT fails every operation.
type failT struct{}

func (failT) TransformFromStorage(context.Context, []byte, Context) ([]byte, bool, error) {
	return nil, false, errors.New("read failed")
}

func (failT) TransformToStorage(context.Context, []byte, Context) ([]byte, error) {
	return nil, errors.New("write failed")
}

func TestPrefixTransformersRead(t *testing.T) {
	ctx := DefaultContext("/registry/secrets/ns/a")
	tests := []struct {
		name      string
		ts        []PrefixTransformer
		noMatch   error
		in        string
		want      string
		wantStale bool
		wantErr   string
	}{
		{
			name: "first prefix is fresh",
			ts:   []PrefixTransformer{{[]byte("a:"), tagT{tag: "!"}}, {[]byte("b:"), tagT{tag: "?"}}},
			in:   "a:x!", want: "x",
		},
		{
			name: "later prefix is stale",
			ts:   []PrefixTransformer{{[]byte("a:"), tagT{tag: "!"}}, {[]byte("b:"), tagT{tag: "?"}}},
			in:   "b:x?", want: "x", wantStale: true,
		},
		{
			name: "inner staleness is kept",
			ts:   []PrefixTransformer{{[]byte("a:"), tagT{tag: "!", stale: true}}},
			in:   "a:x!", want: "x", wantStale: true,
		},
		{
			name: "shared prefix falls through to the next key",
			ts:   []PrefixTransformer{{[]byte("p:"), tagT{tag: "!"}}, {[]byte("p:"), tagT{tag: "?"}}},
			in:   "p:x?", want: "x", wantStale: true,
		},
		{
			name: "empty prefix reads unprefixed data",
			ts:   []PrefixTransformer{{[]byte("a:"), tagT{tag: "!"}}, {nil, tagT{}}},
			in:   "plain", want: "plain", wantStale: true,
		},
		{
			name: "an empty prefix's refusal is not reported",
			ts:   []PrefixTransformer{{nil, failT{}}, {[]byte("a:"), tagT{tag: "!"}}},
			in:   "a:x!", want: "x", wantStale: true,
		},
		{
			name:    "no prefix matches",
			ts:      []PrefixTransformer{{[]byte("a:"), tagT{tag: "!"}}},
			noMatch: errors.New("no matching prefix found"),
			in:      "plain", wantErr: "no matching prefix found",
		},
		{
			name: "default error",
			ts:   []PrefixTransformer{{[]byte("a:"), tagT{tag: "!"}}},
			in:   "plain", wantErr: "does not match any of the supported transformers",
		},
		{
			name: "failures of matching prefixes are reported",
			ts:   []PrefixTransformer{{[]byte("p:"), tagT{tag: "!"}}, {[]byte("p:"), failT{}}},
			in:   "p:x", wantErr: "read failed",
		},
		{
			name:    "only an empty prefix, which refuses",
			ts:      []PrefixTransformer{{nil, failT{}}},
			noMatch: errors.New("no matching prefix found"),
			in:      "x", wantErr: "no matching prefix found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewPrefixTransformers(tt.noMatch, tt.ts...)
			got, stale, err := tr.TransformFromStorage(t.Context(), []byte(tt.in), ctx)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if string(got) != tt.want || stale != tt.wantStale {
				t.Errorf("got (%q, stale=%v), want (%q, stale=%v)", got, stale, tt.want, tt.wantStale)
			}
		})
	}
}

func TestPrefixTransformersWrite(t *testing.T) {
	ctx := DefaultContext("k")
	tr := NewPrefixTransformers(nil,
		PrefixTransformer{[]byte("a:"), tagT{tag: "!"}},
		PrefixTransformer{[]byte("b:"), tagT{tag: "?"}})
	got, err := tr.TransformToStorage(t.Context(), []byte("x"), ctx)
	if err != nil || string(got) != "a:x!" {
		t.Fatalf("TransformToStorage = (%q, %v), want (\"a:x!\", nil)", got, err)
	}
	back, stale, err := tr.TransformFromStorage(t.Context(), got, ctx)
	if err != nil || string(back) != "x" || stale {
		t.Fatalf("round trip = (%q, %v, %v), want (\"x\", false, nil)", back, stale, err)
	}

	if _, err := NewPrefixTransformers(nil, PrefixTransformer{[]byte("a:"), failT{}}).TransformToStorage(t.Context(), []byte("x"), ctx); err == nil {
		t.Error("a failing writer must fail the write")
	}
	noneErr := errors.New("none configured")
	if _, err := NewPrefixTransformers(noneErr).TransformToStorage(t.Context(), []byte("x"), ctx); !errors.Is(err, noneErr) {
		t.Errorf("write without transformers = %v, want %v", err, noneErr)
	}
}

func TestDefaultContext(t *testing.T) {
	if got := DefaultContext("/registry/secrets/a/b").AuthenticatedData(); string(got) != "/registry/secrets/a/b" {
		t.Errorf("AuthenticatedData() = %q", got)
	}
}
