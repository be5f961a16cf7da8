package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
)

// validateRequestHeader refuses --requestheader-* settings that would be
// ignored: without --requestheader-client-ca-file kapi neither trusts
// front-proxy headers nor publishes them in
// extension-apiserver-authentication (upstream drops them silently).
func (o *securityOptions) validateRequestHeader() []error {
	rh := o.RequestHeader
	if rh.ClientCAFile != "" {
		return nil
	}
	var errs []error
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"requestheader-allowed-names", len(rh.AllowedNames) > 0},
		{"requestheader-username-headers", len(rh.UsernameHeaders) > 0},
		{"requestheader-uid-headers", len(rh.UIDHeaders) > 0},
		{"requestheader-group-headers", len(rh.GroupHeaders) > 0},
		{"requestheader-extra-headers-prefix", len(rh.ExtraHeaderPrefixes) > 0},
	} {
		if f.set {
			errs = append(errs, fmt.Errorf("--%s needs --requestheader-client-ca-file", f.name))
		}
	}
	return errs
}

// validateProxyClientCert checks --proxy-client-cert-file and
// --proxy-client-key-file: both or neither, and they must load as a key
// pair now rather than fail the first proxied request.
func validateProxyClientCert(certFile, keyFile string) error {
	switch {
	case certFile == "" && keyFile == "":
		return nil
	case certFile == "":
		return errors.New("--proxy-client-key-file needs --proxy-client-cert-file")
	case keyFile == "":
		return errors.New("--proxy-client-cert-file needs --proxy-client-key-file")
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return fmt.Errorf("--proxy-client-cert-file: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("--proxy-client-key-file: %w", err)
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return fmt.Errorf("--proxy-client-cert-file %s and --proxy-client-key-file %s are not a key pair: %w", certFile, keyFile, err)
	}
	return nil
}
