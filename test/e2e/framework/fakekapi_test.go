package framework

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	x509auth "github.com/kapi-dev/kapi/internal/auth/authenticator/x509"
	"github.com/kapi-dev/kapi/internal/kubeconfig"
	"github.com/kapi-dev/kapi/internal/pki"
)

// envFakeKapi makes the test binary act as a minimal `kapi serve`: it keeps
// the CLI contract (flags, admin kubeconfig, /readyz behind client
// certificates, SIGTERM) so the framework is tested before, and apart from,
// the real server.
const envFakeKapi = "KAPI_FRAMEWORK_FAKE_KAPI"

func fakeKapi(args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: kapi serve [flags]")
		return 2
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "")
	port := fs.String("secure-port", "6443", "")
	bind := fs.String("bind-address", "0.0.0.0", "")
	fs.String("storage-backend", "etcd3", "")
	exitEarly := fs.Bool("fail", false, "exit before serving")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *exitEarly {
		fmt.Println("failing as asked")
		return 3
	}
	if err := fakeServe(*dataDir, *bind, *port); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	return 0
}

func fakeServe(dataDir, bind, port string) error {
	m, err := pki.Ensure(filepath.Join(dataDir, "pki"), []string{bind})
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(bind, port)
	path := filepath.Join(dataDir, KubeconfigName)
	if err := kubeconfig.WriteAdmin(path, "https://"+addr, m.CA.CertPEM, m.AdminCertPEM, m.AdminKeyPEM, true); err != nil {
		return err
	}
	fmt.Println("Admin kubeconfig:", path)
	cert, err := tls.X509KeyPair(m.ServingCertPEM, m.ServingKeyPEM)
	if err != nil {
		return err
	}
	authn := x509auth.New(m.CA.CertPool())
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if _, ok, err := authn.AuthenticateRequest(r); !ok || err != nil {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequestClientCert,
	}}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	fmt.Println("kapi is ready")

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	return srv.Shutdown(context.Background())
}
