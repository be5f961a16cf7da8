package pki

import (
	"path/filepath"
	"testing"
)

func TestLoadCertPool(t *testing.T) {
	dir := t.TempDir()
	m, err := Ensure(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.crt")
	write(t, empty, nil)
	tests := []struct {
		file    string
		wantErr bool
	}{
		{file: filepath.Join(dir, CACertFile)},
		{file: empty, wantErr: true},
		{file: filepath.Join(dir, "missing.crt"), wantErr: true},
	}
	for _, tt := range tests {
		pool, data, err := LoadCertPool(tt.file)
		if gotErr := err != nil; gotErr != tt.wantErr {
			t.Errorf("LoadCertPool(%s) error = %v, want error %v", tt.file, err, tt.wantErr)
			continue
		}
		if err == nil && (!pool.Equal(m.CA.CertPool()) || string(data) != string(m.CA.CertPEM)) {
			t.Errorf("LoadCertPool(%s) did not return the CA", tt.file)
		}
	}
}

func TestLoadKeyPair(t *testing.T) {
	dir := t.TempDir()
	if _, err := Ensure(dir, nil); err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		cert, key string
		wantErr   bool
	}{
		{cert: p(ServingCertFile), key: p(ServingKeyFile)},
		{cert: p(ServingCertFile), key: p(AdminKeyFile), wantErr: true},
		{cert: p("missing.crt"), key: p(ServingKeyFile), wantErr: true},
	}
	for _, tt := range tests {
		c, err := LoadKeyPair(tt.cert, tt.key)
		if gotErr := err != nil; gotErr != tt.wantErr {
			t.Errorf("LoadKeyPair(%s, %s) error = %v, want error %v", tt.cert, tt.key, err, tt.wantErr)
		}
		if err == nil && c.Leaf == nil {
			t.Error("LoadKeyPair returned no parsed leaf")
		}
	}
}
