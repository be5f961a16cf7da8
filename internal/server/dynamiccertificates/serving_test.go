package dynamiccertificates

import (
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestServingReload rotates the default pair on disk, including through
// states that must not be taken, and checks what real handshakes see.
func TestServingReload(t *testing.T) {
	ca := newTestCA(t, "ca")
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	issue := func(id string) ([]byte, []byte) {
		return ca.issue(t, certSpec{id: id, dnsNames: []string{"kapi.example.com"}})
	}
	certA, keyA := issue("a")
	certB, keyB := issue("b")
	certC, keyC := issue("c")
	files := newPairFiles(t, "serving")
	files.write(t, certA, keyA)
	logs := &logRecorder{}
	s, err := NewServing(files.cert, files.key, nil, time.Minute, slog.New(logs))
	if err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name       string
		write      func()
		want       string
		wantErrors int // error logs so far
	}{
		{name: "initial", write: func() {}, want: "a"},
		{name: "unchanged", write: func() {}, want: "a"},
		{name: "new pair", write: func() { files.write(t, certB, keyB) }, want: "b"},
		{name: "certificate written, key not yet", write: func() { writeFile(t, files.cert, certC) }, want: "b", wantErrors: 1},
		{name: "the same half-written state logs once", write: func() {}, want: "b", wantErrors: 1},
		{name: "key written too", write: func() { writeFile(t, files.key, keyC) }, want: "c", wantErrors: 1},
		{name: "garbage", write: func() { writeFile(t, files.cert, []byte("not PEM")) }, want: "c", wantErrors: 2},
		{name: "empty", write: func() { writeFile(t, files.cert, nil) }, want: "c", wantErrors: 3},
		{name: "key in place of the certificate", write: func() { writeFile(t, files.cert, keyC) }, want: "c", wantErrors: 4},
		{name: "removed", write: func() { os.Remove(files.cert) }, want: "c", wantErrors: 5},
		{name: "back to a good pair", write: func() { files.write(t, certA, keyA) }, want: "a", wantErrors: 5},
	}
	for _, step := range steps {
		step.write()
		s.reload()
		if got := handshake(t, s.GetCertificate, roots, "kapi.example.com"); got != step.want {
			t.Errorf("%s: handshake saw certificate %s, want %s", step.name, got, step.want)
		}
		if got := logs.count(); got != step.wantErrors {
			t.Errorf("%s: %d errors logged, want %d: %q", step.name, got, step.wantErrors, logs.errors)
		}
	}
	for _, msg := range logs.errors {
		if strings.Contains(msg, "PRIVATE KEY") {
			t.Errorf("a log message carries key material: %q", msg)
		}
	}
}

// TestServingReloadSNI rotates an SNI pair and checks that selection follows
// the new certificate's names while a broken pair keeps serving its old one.
func TestServingReloadSNI(t *testing.T) {
	ca := newTestCA(t, "ca")
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	def := newPairFiles(t, "default")
	def.writeIssued(t, ca, certSpec{id: "default", dnsNames: []string{"default.example.com", "new.example.com", "fixed.example.com"}})
	named := newPairFiles(t, "named")
	named.writeIssued(t, ca, certSpec{id: "old", dnsNames: []string{"old.example.com"}})
	fixed := newPairFiles(t, "fixed")
	fixed.writeIssued(t, ca, certSpec{id: "fixed", dnsNames: []string{"fixed.example.com"}})
	s, err := NewServing(def.cert, def.key, []SNICertKey{
		{CertFile: named.cert, KeyFile: named.key},
		{CertFile: fixed.cert, KeyFile: fixed.key, Names: []string{"fixed.example.com"}},
	}, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when, server, want string) {
		t.Helper()
		if got := handshake(t, s.GetCertificate, roots, server); got != want {
			t.Errorf("%s: %s got %s, want %s", when, server, got, want)
		}
	}
	check("before", "old.example.com", "old")
	check("before", "fixed.example.com", "fixed")

	named.writeIssued(t, ca, certSpec{id: "new", dnsNames: []string{"new.example.com"}})
	writeFile(t, fixed.key, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
	s.reload()
	check("after", "new.example.com", "new")
	check("after", "fixed.example.com", "fixed")
	// The old name is gone with the old certificate; the default serves it
	// (and the client rightly refuses, so ask the table).
	if got := certID(s.table.Load().lookup(helloTo("192.0.2.1"))); got != "default" {
		t.Errorf("after: no SNI got %s, want default", got)
	}
}

// TestServingRunPolls lets Run's ticker drive the reload, in a bubble whose
// clock only moves when every goroutine waits.
func TestServingRunPolls(t *testing.T) {
	ca := newTestCA(t, "ca")
	certA, keyA := ca.issue(t, certSpec{id: "a"})
	certB, keyB := ca.issue(t, certSpec{id: "b"})
	synctest.Test(t, func(t *testing.T) {
		files := newPairFiles(t, "serving")
		files.write(t, certA, keyA)
		const interval = 10 * time.Second
		s, err := NewServing(files.cert, files.key, nil, interval, nil)
		if err != nil {
			t.Fatal(err)
		}
		stop := startRun(t, s.Run)
		files.write(t, certB, keyB)
		time.Sleep(interval - time.Second)
		synctest.Wait()
		if got := certID(s.table.Load().def); got != "a" {
			t.Errorf("before the interval: serving %s, want a", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := certID(s.table.Load().def); got != "b" {
			t.Errorf("after the interval: serving %s, want b", got)
		}
		stop()
	})
}

func TestNewServingErrors(t *testing.T) {
	ca := newTestCA(t, "ca")
	good := newPairFiles(t, "good")
	good.writeIssued(t, ca, certSpec{id: "good"})
	_, otherKey := ca.issue(t, certSpec{id: "other"})
	mismatched := newPairFiles(t, "mismatched")
	certM, _ := ca.issue(t, certSpec{id: "m"})
	mismatched.write(t, certM, otherKey)
	empty := newPairFiles(t, "empty")
	empty.write(t, nil, nil)
	missing := newPairFiles(t, "missing")

	tests := []struct {
		name          string
		cert, key     string
		sni           []SNICertKey
		wantErrPrefix string
	}{
		{name: "nothing", wantErrPrefix: "missing filename for serving cert"},
		{name: "a certificate without a key", cert: good.cert, wantErrPrefix: "a serving certificate needs both"},
		{name: "missing files", cert: missing.cert, key: missing.key, wantErrPrefix: `loading serving cert "` + missing.cert},
		{name: "empty files", cert: empty.cert, key: empty.key, wantErrPrefix: "loading serving cert"},
		{name: "a key of another certificate", cert: mismatched.cert, key: mismatched.key, wantErrPrefix: "loading serving cert"},
		{name: "an SNI pair without a key", cert: good.cert, key: good.key, sni: []SNICertKey{{CertFile: good.cert}}, wantErrPrefix: "failed to load SNI cert and key [0]"},
		{name: "a bad SNI pair", cert: good.cert, key: good.key, sni: []SNICertKey{{CertFile: mismatched.cert, KeyFile: mismatched.key}}, wantErrPrefix: `failed to load SNI cert and key "` + mismatched.cert},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewServing(tt.cert, tt.key, tt.sni, 0, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErrPrefix) {
				t.Fatalf("NewServing = %v, %v; want an error starting %q", s, err, tt.wantErrPrefix)
			}
		})
	}
	if _, err := NewServing("", "", []SNICertKey{{CertFile: good.cert, KeyFile: good.key}}, 0, nil); err != nil {
		t.Errorf("SNI pairs alone: %v", err)
	}
}

func BenchmarkGetCertificate(b *testing.B) {
	ca := newTestCA(b, "ca")
	def := newPairFiles(b, "default")
	def.writeIssued(b, ca, certSpec{id: "default"})
	var sni []SNICertKey
	for _, name := range []string{"a", "b", "c", "d"} {
		p := newPairFiles(b, name)
		p.writeIssued(b, ca, certSpec{id: name, dnsNames: []string{name + ".example.com"}})
		sni = append(sni, SNICertKey{CertFile: p.cert, KeyFile: p.key})
	}
	s, err := NewServing(def.cert, def.key, sni, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	hello := &tls.ClientHelloInfo{ServerName: "c.example.com"}
	for b.Loop() {
		if c, _ := s.GetCertificate(hello); c == nil {
			b.Fatal("no certificate")
		}
	}
}
