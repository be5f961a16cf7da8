package dynamiccertificates

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// verifies says whether a client certificate issued by ca verifies
// against pool.
func verifies(t *testing.T, ca *testCA, pool *x509.CertPool) bool {
	t.Helper()
	leaf := ca.tlsCert(t, certSpec{id: "client", cn: "alice", client: true}).Leaf
	_, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return err == nil
}

func TestClientCAReload(t *testing.T) {
	ca1, ca2 := newTestCA(t, "ca1"), newTestCA(t, "ca2")
	file := filepath.Join(t.TempDir(), "ca.crt")
	writeFile(t, file, ca1.pem)
	logs := &logRecorder{}
	c, err := NewClientCA(file, time.Minute, slog.New(logs))
	if err != nil {
		t.Fatal(err)
	}

	both := append(append([]byte("# a comment before the first certificate\n"), ca1.pem...), ca2.pem...)
	steps := []struct {
		name           string
		content        []byte // nil leaves the file alone
		want1, want2   bool
		wantPEM        []byte
		wantErrors     int
		wantSamePoolAs bool // Pool is the one of the previous step
	}{
		{name: "initial", want1: true, wantPEM: ca1.pem},
		{name: "unchanged", want1: true, wantPEM: ca1.pem, wantSamePoolAs: true},
		{name: "rotated", content: ca2.pem, want2: true, wantPEM: ca2.pem},
		{name: "both", content: both, want1: true, want2: true, wantPEM: both},
		{name: "empty keeps the previous", content: []byte{}, want1: true, want2: true, wantPEM: both, wantErrors: 1, wantSamePoolAs: true},
		{name: "no certificate keeps the previous", content: []byte("garbage"), want1: true, want2: true, wantPEM: both, wantErrors: 2, wantSamePoolAs: true},
		{name: "a bad certificate keeps the previous", content: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")}), want1: true, want2: true, wantPEM: both, wantErrors: 3, wantSamePoolAs: true},
		{name: "the same bad content logs once", want1: true, want2: true, wantPEM: both, wantErrors: 3, wantSamePoolAs: true},
		{name: "back to one", content: ca1.pem, want1: true, wantPEM: ca1.pem, wantErrors: 3},
	}
	var prev *x509.CertPool
	for _, step := range steps {
		if step.content != nil {
			writeFile(t, file, step.content)
		}
		c.reload()
		pool := c.Pool()
		if got := verifies(t, ca1, pool); got != step.want1 {
			t.Errorf("%s: ca1 client verifies = %v, want %v", step.name, got, step.want1)
		}
		if got := verifies(t, ca2, pool); got != step.want2 {
			t.Errorf("%s: ca2 client verifies = %v, want %v", step.name, got, step.want2)
		}
		if !bytes.Equal(c.PEM(), step.wantPEM) {
			t.Errorf("%s: PEM = %q, want %q", step.name, c.PEM(), step.wantPEM)
		}
		if got := logs.count(); got != step.wantErrors {
			t.Errorf("%s: %d errors logged, want %d: %q", step.name, got, step.wantErrors, logs.errors)
		}
		if prev != nil && (pool == prev) != step.wantSamePoolAs {
			t.Errorf("%s: same pool as before = %v, want %v", step.name, pool == prev, step.wantSamePoolAs)
		}
		prev = pool
	}
}

func TestClientCARunPolls(t *testing.T) {
	ca1, ca2 := newTestCA(t, "ca1"), newTestCA(t, "ca2")
	synctest.Test(t, func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "ca.crt")
		writeFile(t, file, ca1.pem)
		c, err := NewClientCA(file, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		stop := startRun(t, c.Run)
		writeFile(t, file, ca2.pem)
		time.Sleep(DefaultInterval - time.Second)
		synctest.Wait()
		if !bytes.Equal(c.PEM(), ca1.pem) {
			t.Errorf("before the interval: not ca1")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if !bytes.Equal(c.PEM(), ca2.pem) {
			t.Errorf("after the interval: not ca2")
		}
		stop()
	})
}

func TestNewClientCAErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.crt")
	writeFile(t, empty, nil)
	garbage := filepath.Join(dir, "garbage.crt")
	writeFile(t, garbage, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
	tests := []struct {
		file, wantErrPrefix string
	}{
		{file: "", wantErrPrefix: "missing filename for ca bundle"},
		{file: filepath.Join(dir, "missing.crt"), wantErrPrefix: "open "},
		{file: empty, wantErrPrefix: `missing content for CA bundle "` + empty + `"`},
		{file: garbage, wantErrPrefix: `unable to load client CA file "` + garbage + `"`},
	}
	for _, tt := range tests {
		c, err := NewClientCA(tt.file, 0, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tt.wantErrPrefix) {
			t.Errorf("NewClientCA(%q) = %v, %v; want an error starting %q", tt.file, c, err, tt.wantErrPrefix)
		}
	}
}

func TestUnionPool(t *testing.T) {
	ca1, ca2, ca3 := newTestCA(t, "ca1"), newTestCA(t, "ca2"), newTestCA(t, "ca3")
	dir := t.TempDir()
	file1, file2 := filepath.Join(dir, "1.crt"), filepath.Join(dir, "2.crt")
	writeFile(t, file1, ca1.pem)
	writeFile(t, file2, ca2.pem)
	c1, err := NewClientCA(file1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := NewClientCA(file2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	union := UnionPool(c1, nil, c2)

	first := union()
	if !verifies(t, ca1, first) || !verifies(t, ca2, first) || verifies(t, ca3, first) {
		t.Fatalf("union does not hold exactly ca1 and ca2")
	}
	c1.reload()
	if union() != first {
		t.Errorf("union rebuilt without a reload")
	}
	writeFile(t, file2, ca3.pem)
	c2.reload()
	second := union()
	if second == first {
		t.Fatalf("union not rebuilt after a reload")
	}
	if !verifies(t, ca1, second) || verifies(t, ca2, second) || !verifies(t, ca3, second) {
		t.Errorf("after the reload, union does not hold exactly ca1 and ca3")
	}
	if verifies(t, ca1, UnionPool()()) {
		t.Errorf("an empty union trusts ca1")
	}
}

func BenchmarkUnionPool(b *testing.B) {
	dir := b.TempDir()
	var cas []*ClientCA
	for _, name := range []string{"a", "b"} {
		file := filepath.Join(dir, name+".crt")
		writeFile(b, file, newTestCA(b, name).pem)
		c, err := NewClientCA(file, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		cas = append(cas, c)
	}
	union := UnionPool(cas...)
	for b.Loop() {
		if union() == nil {
			b.Fatal("no pool")
		}
	}
}
