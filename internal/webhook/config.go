// Package webhook is kapi's client for calling out to webhooks (CRD
// conversion now, admission later): it builds one TLS client per webhook
// configuration, reaches a webhook by URL or through a service reference,
// and tells "could not call the webhook" apart from "the webhook answered
// with an error status".
package webhook

import (
	"errors"
	"fmt"
	"net/url"
)

// ServiceReference names the in-cluster service a webhook is served by.
type ServiceReference struct {
	Namespace, Name, Path string
	Port                  int32
}

// ClientConfig says how to reach one webhook.
type ClientConfig struct {
	Name     string // for error messages, e.g. the CRD name
	URL      string // either URL or Service
	Service  *ServiceReference
	CABundle []byte // PEM; empty = system roots
}

// ServiceResolver turns a service reference into the URL to dial.
type ServiceResolver interface {
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// DefaultServiceResolver resolves to https://<name>.<namespace>.svc:<port>, as upstream's default.
func DefaultServiceResolver() ServiceResolver { return defaultResolver{} }

type defaultResolver struct{}

func (defaultResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if name == "" || namespace == "" || port == 0 {
		return nil, errors.New("cannot resolve an empty service name or namespace or port")
	}
	return &url.URL{Scheme: "https", Host: fmt.Sprintf("%s.%s.svc:%d", name, namespace, port)}, nil
}
