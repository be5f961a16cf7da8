package cli

import (
	"bytes"
	"strings"
	"testing"
)

// The measurement itself is tested with a fake server in
// internal/bench/startup; these check the command's flags.
func TestBenchStartupCommandErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "no binary", args: nil, wantErr: "--binary is required"},
		{name: "bad output", args: []string{"--binary", "x", "-o", "yaml"}, wantErr: `--output "yaml" is not supported`},
		{name: "no runs", args: []string{"--binary", "x", "--runs", "0"}, wantErr: "--runs 0 must be at least 1"},
		{name: "missing binary", args: []string{"--binary", "/nonexistent/kapi", "--runs", "1"}, wantErr: "starting /nonexistent/kapi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newBenchStartupCommand()
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
