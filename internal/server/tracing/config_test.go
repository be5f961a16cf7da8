package tracing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		want    Config
		wantErr string // a part of the error; "" wants none
	}{
		{
			name: "defaults",
			file: "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n",
			want: Config{Endpoint: "localhost:4317", SamplingRatePerMillion: 0},
		},
		{
			name: "v1beta1 with both fields",
			file: "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: collector.example:4317\nsamplingRatePerMillion: 100\n",
			want: Config{Endpoint: "collector.example:4317", SamplingRatePerMillion: 100},
		},
		{
			name: "v1alpha1 as JSON, every request",
			file: `{"apiVersion":"apiserver.config.k8s.io/v1alpha1","kind":"TracingConfiguration","samplingRatePerMillion":1000000}`,
			want: Config{Endpoint: "localhost:4317", SamplingRatePerMillion: 1000000},
		},
		{
			name: "unix socket",
			file: "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: unix:///var/run/otel.sock\n",
			want: Config{Endpoint: "unix:///var/run/otel.sock"},
		},
		{
			name:    "negative sampling rate",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: -1\n",
			wantErr: "samplingRatePerMillion: Invalid value: -1: sampling rate must be positive",
		},
		{
			name:    "sampling rate above a million",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 1000001\n",
			wantErr: "samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million",
		},
		{
			name:    "endpoint with an http scheme",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: http://collector:4317\n",
			wantErr: `endpoint: Invalid value: "http://collector:4317": unsupported scheme: http.`,
		},
		{
			name:    "endpoint that is no URL",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: \"%zz:4317\"\n",
			wantErr: `endpoint: Invalid value: "%zz:4317"`,
		},
		{
			name:    "empty endpoint",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: \"\"\n",
			wantErr: "endpoint: Required value",
		},
		{
			name:    "both fields wrong, both named",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: grpc://c:1\nsamplingRatePerMillion: -5\n",
			wantErr: "[samplingRatePerMillion: Invalid value: -5: sampling rate must be positive, endpoint: Invalid value:",
		},
		{
			name:    "wrong kind",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n",
			wantErr: `no kind "EncryptionConfiguration" is registered for version "apiserver.config.k8s.io/v1"`,
		},
		{
			name:    "wrong group",
			file:    "apiVersion: apiserver.k8s.io/v1alpha1\nkind: TracingConfiguration\n",
			wantErr: `no kind "TracingConfiguration" is registered for version "apiserver.k8s.io/v1alpha1"`,
		},
		{
			name:    "unknown version",
			file:    "apiVersion: apiserver.config.k8s.io/v2\nkind: TracingConfiguration\n",
			wantErr: `no kind "TracingConfiguration" is registered for version "apiserver.config.k8s.io/v2"`,
		},
		{
			name:    "unknown field",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRate: 5\n",
			wantErr: `unknown field "samplingRate"`,
		},
		{
			name:    "duplicate field",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: a:1\nendpoint: b:1\n",
			wantErr: `"endpoint" already set`,
		},
		{
			name:    "no kind",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nendpoint: a:1\n",
			wantErr: "Object 'Kind' is missing",
		},
		{
			name:    "no apiVersion",
			file:    "kind: TracingConfiguration\n",
			wantErr: "Object 'apiVersion' is missing",
		},
		{
			name:    "sampling rate of the wrong type",
			file:    "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: lots\n",
			wantErr: "unable to decode tracing configuration data",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tracing.yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := Load(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Load = %+v, %v; want an error containing %q", got, err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if *got != tc.want {
				t.Errorf("Load = %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.yaml")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "unable to read tracing configuration from "+`"`+path) {
		t.Fatalf("Load = %v, want a read error naming %s", err, path)
	}
}

func TestServerID(t *testing.T) {
	a, b := ServerID("host-a"), ServerID("host-b")
	if a == b || a != ServerID("host-a") {
		t.Errorf("ServerID(host-a) = %q, ServerID(host-b) = %q: want stable and distinct", a, b)
	}
	// "apiserver-" and 16 bytes in unpadded base32.
	if !strings.HasPrefix(a, "apiserver-") || len(a) != len("apiserver-")+26 || strings.ToLower(a) != a {
		t.Errorf("ServerID = %q, want apiserver- and 26 lower-case base32 letters", a)
	}
}
