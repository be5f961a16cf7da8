package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMarkers(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		want    field
		wantErr string
	}{
		{name: "no markers", lines: []string{"name is the name.", "", "More text."}},
		{name: "optional", lines: []string{"doc", "+optional"}, want: field{Optional: true}},
		{name: "required k8s spelling", lines: []string{"+k8s:required"}, want: field{Required: true}},
		{name: "both spellings agree", lines: []string{"+optional", "+k8s:optional"}, want: field{Optional: true}},
		{
			name:  "map list with keys in order",
			lines: []string{"+listType=map", "+listMapKey=containerPort", "+listMapKey=protocol"},
			want:  field{ListType: "map", ListMapKeys: []string{"containerPort", "protocol"}},
		},
		{
			name:  "keys in both spellings are not doubled",
			lines: []string{"+listType=map", "+listMapKey=name", "+k8s:listType=map", "+k8s:listMapKey=name"},
			want:  field{ListType: "map", ListMapKeys: []string{"name"}},
		},
		{
			name:  "k8s spelling alone",
			lines: []string{"+k8s:listType=map", "+k8s:listMapKey=type"},
			want:  field{ListType: "map", ListMapKeys: []string{"type"}},
		},
		{name: "map type", lines: []string{"+mapType=atomic"}, want: field{MapType: "atomic"}},
		{name: "struct type", lines: []string{"  +structType=granular  "}, want: field{StructType: "granular"}},
		{name: "default number", lines: []string{"+default=86400"}, want: field{Default: "86400"}},
		{name: "default string", lines: []string{`+default="TCP"`}, want: field{Default: `"TCP"`}},
		{name: "default object", lines: []string{`+default={"single": {}}`}, want: field{Default: `{"single": {}}`}},
		{name: "default ref kept for the package", lines: []string{"+default=ref(Foo)"}, want: field{Default: "ref(Foo)"}},
		{name: "k8s default", lines: []string{"+k8s:default=false"}, want: field{Default: "false"}},
		{
			name:  "gated validation rules are not markers",
			lines: []string{`+k8s:alpha(since: "1.37")=+k8s:required`, `+k8s:ifEnabled("X")=+k8s:optional`, "+k8s:defaulter-gen=TypeMeta", "+k8s:maxItems=8"},
		},
		{name: "other markers ignored", lines: []string{"+patchMergeKey=name", "+patchStrategy=merge", "+featureGate=Foo"}},
		{name: "marker word inside prose", lines: []string{"Fields of this type must be listType=atomic, not +optional here"}},
		{name: "bad list type", lines: []string{"+listType=ordered"}, wantErr: "want one of atomic, set, map"},
		{name: "bad map type", lines: []string{"+mapType=set"}, wantErr: "want one of atomic, granular"},
		{name: "list type conflict across spellings", lines: []string{"+listType=set", "+k8s:listType=map"}, wantErr: "conflicting +listType"},
		{name: "keys disagree", lines: []string{"+listMapKey=name", "+k8s:listMapKey=type"}, wantErr: "disagree"},
		{name: "empty key", lines: []string{"+listMapKey="}, wantErr: "needs a value"},
		{name: "default not JSON", lines: []string{"+default=TCP"}, wantErr: "not JSON"},
		{name: "default empty", lines: []string{"+default="}, wantErr: "needs a value"},
		{name: "optional with value", lines: []string{"+optional=true"}, wantErr: "takes no value"},
		{name: "optional and required", lines: []string{"+optional", "+k8s:required"}, wantErr: "both +optional and +required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMarkers(tt.lines)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseMarkers(%q) error = %v, want one containing %q", tt.lines, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseMarkers(%q): %v", tt.lines, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseMarkers(%q) (-want +got):\n%s", tt.lines, diff)
			}
		})
	}
}
