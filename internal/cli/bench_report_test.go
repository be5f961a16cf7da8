package cli

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchReportCommand(t *testing.T) {
	in := filepath.Join("..", "bench", "report", "testdata", "kapi-2026-08-01.json")
	out := filepath.Join(t.TempDir(), "chart.svg")
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantStdout string
	}{
		{name: "svg to a file", args: []string{in, "-o", out}},
		{name: "markdown to stdout", args: []string{in, "--format", "markdown"}, wantStdout: "| create | kapi/etcd3 |"},
		{name: "bad format", args: []string{in, "--format", "png"}, wantErr: `--format "png" is not supported`},
		{name: "no files", args: nil, wantErr: "requires at least 1 arg"},
		{name: "missing file", args: []string{"nope.json"}, wantErr: "nope.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newBenchReportCommand()
			var stdout bytes.Buffer
			cmd.SetOut(&stdout)
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs(tt.args)
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
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, stdout.String())
			}
		})
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ XMLName xml.Name }
	if err := xml.Unmarshal(b, &v); err != nil || v.XMLName.Local != "svg" {
		t.Errorf("%s is not an SVG document: %v %v", out, v.XMLName, err)
	}
}
