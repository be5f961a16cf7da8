package apiserverinfo

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
)

// AuthenticationConfigMap is where delegated authenticators find the
// client CA and the request-header settings.
const AuthenticationConfigMap = "extension-apiserver-authentication"

// Keys of AuthenticationConfigMap; the header lists are JSON arrays.
const (
	ClientCAKey            = "client-ca-file"
	RequestHeaderCAKey     = "requestheader-client-ca-file"
	UsernameHeadersKey     = "requestheader-username-headers"
	UIDHeadersKey          = "requestheader-uid-headers"
	GroupHeadersKey        = "requestheader-group-headers"
	ExtraHeaderPrefixesKey = "requestheader-extra-headers-prefix"
	AllowedNamesKey        = "requestheader-allowed-names"
)

// AuthenticationInfo is what the server authenticates clients with.
type AuthenticationInfo struct {
	// ClientCA is the PEM bundle of client-certificate authorities.
	ClientCA []byte
	// RequestHeaderCA is --requestheader-client-ca-file's bundle; without
	// it no request-header key is written.
	RequestHeaderCA                                                []byte
	UsernameHeaders, UIDHeaders, GroupHeaders, ExtraHeaderPrefixes []string
	AllowedNames                                                   []string
}

// authInfoResync is how often the ConfigMap is checked besides its watch,
// as upstream re-checks every minute.
const authInfoResync = time.Minute

// RunAuthenticationInfo keeps AuthenticationConfigMap holding info merged
// with what is there (so servers sharing a store with other CAs or
// headers do not overwrite each other, as upstream merges), until ctx ends.
func RunAuthenticationInfo(ctx context.Context, client kubernetes.Interface, newInformer InformerFunc, info AuthenticationInfo, clk clock.PassiveClock, logger *slog.Logger) error {
	k, err := newKeeper(client, newInformer, AuthenticationConfigMap, authInfoResync, logger, func(existing *corev1.ConfigMap) (map[string]string, error) {
		var data map[string]string
		if existing != nil {
			data = existing.Data
		}
		return authenticationData(data, info, clk.Now())
	})
	if err != nil {
		return err
	}
	go k.Run(ctx)
	return nil
}

// authenticationData merges info into existing data: CA bundles are
// unioned (expired certificates dropped), header lists unioned in order.
func authenticationData(existing map[string]string, info AuthenticationInfo, now time.Time) (map[string]string, error) {
	data := map[string]string{}
	if ca := mergeBundles([]byte(existing[ClientCAKey]), info.ClientCA, now); len(ca) > 0 {
		data[ClientCAKey] = string(ca)
	}
	rhCA := mergeBundles([]byte(existing[RequestHeaderCAKey]), info.RequestHeaderCA, now)
	if len(rhCA) == 0 {
		return data, nil
	}
	data[RequestHeaderCAKey] = string(rhCA)
	for key, values := range map[string][]string{
		UsernameHeadersKey: info.UsernameHeaders, UIDHeadersKey: info.UIDHeaders,
		GroupHeadersKey: info.GroupHeaders, ExtraHeaderPrefixesKey: info.ExtraHeaderPrefixes,
		AllowedNamesKey: info.AllowedNames,
	} {
		var old []string
		if s := existing[key]; s != "" {
			// A malformed value is replaced, not kept.
			_ = json.Unmarshal([]byte(s), &old)
		}
		merged := []string{}
		for _, v := range append(old, values...) {
			if !slices.Contains(merged, v) {
				merged = append(merged, v)
			}
		}
		out, err := json.Marshal(merged)
		if err != nil {
			return nil, err
		}
		data[key] = string(out)
	}
	return data, nil
}

// mergeBundles returns the certificates of a then b, each once, without
// the expired ones, as PEM.
func mergeBundles(a, b []byte, now time.Time) []byte {
	var out bytes.Buffer
	var seen [][]byte
	for _, bundle := range [][]byte{a, b} {
		rest := bundle
		for {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			if block.Type != "CERTIFICATE" {
				continue
			}
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil || now.After(cert.NotAfter) {
				continue
			}
			if slices.ContainsFunc(seen, func(raw []byte) bool { return bytes.Equal(raw, block.Bytes) }) {
				continue
			}
			seen = append(seen, block.Bytes)
			_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: block.Bytes})
		}
	}
	return out.Bytes()
}
