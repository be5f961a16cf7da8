package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestBenchCompare runs `kapi bench --compare A B` on two small result
// files: every figure of both runs with the ratio B/A, "–" where B lacks
// the phase; and the argument count is checked.
func TestBenchCompare(t *testing.T) {
	tests := []struct {
		args      []string
		wantLines [][]string // fields of lines the output must hold
		wantErr   string
	}{
		{
			args: []string{"testdata/bench-compare-a.jsonl", "testdata/bench-compare-b.json"},
			wantLines: [][]string{
				{"A:", "bench-compare-a.jsonl", "(kube-apiserver/etcd,", "2026-08-01", "10:00)"},
				{"B:", "bench-compare-b.json", "(kapi/memory,", "2026-08-02", "00:00)"},
				{"list/paged", "seconds", "0.336", "0.168", "0.50"},
				{"list/paged", "server", "CPU", "s", "0.5", "0.25", "0.50"},
				{"list/paged", "RSS", "MB", "100", "50.0", "0.50"},
				{"get", "ops/s", "1,000", "–", "–"},
			},
		},
		{args: []string{"testdata/bench-compare-a.jsonl"}, wantErr: "want two results files A and B, got 1 arguments"},
		{args: []string{"testdata/bench-compare-a.jsonl", "testdata/missing.json"}, wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := NewKapiCommand()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs(append([]string{"bench", "--compare"}, tt.args...))
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines [][]string
			for _, l := range strings.Split(out.String(), "\n") {
				lines = append(lines, strings.Fields(l))
			}
			for _, want := range tt.wantLines {
				found := false
				for _, l := range lines {
					if strings.Join(l, " ") == strings.Join(want, " ") {
						found = true
					}
				}
				if !found {
					t.Errorf("output lacks the line %q:\n%s", strings.Join(want, " "), out.String())
				}
			}
		})
	}
}
