package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/lru"
)

const (
	// defaultTimeout is upstream's timeout for webhook calls.
	defaultTimeout = 30 * time.Second
	// cacheSize bounds the number of clients kept, as upstream's cache.
	cacheSize = 200
	// maxResponseBytes bounds how much of an answer is read, so a broken or
	// hostile webhook cannot exhaust memory. Upstream reads without a limit;
	// this is well above any conversion of a full list of 1.5 MiB objects
	// a cluster is likely to hold in one response.
	maxResponseBytes = 256 << 20
	// maxErrorTextBytes is how much of a non-Status error body goes into the
	// error message (client-go's limit).
	maxErrorTextBytes = 2048
)

// ClientManager builds and caches the clients of webhooks.
type ClientManager struct {
	resolver         ServiceResolver
	timeout          time.Duration
	cache            *lru.Cache
	maxResponseBytes int64
	// authInfo gives per-target credentials (nil: anonymous).
	authInfo *AuthInfoResolver
	// wrap, when set, wraps every client's transport.
	wrap func(http.RoundTripper) http.RoundTripper
}

// WithAuthInfo is a manager like m, with its own client cache, that
// presents the credentials r gives for each webhook.
func (m *ClientManager) WithAuthInfo(r *AuthInfoResolver) *ClientManager {
	out := m.copy()
	out.authInfo = r
	return out
}

// WithTransportWrapper is a manager like m, with its own client cache,
// whose clients send through wrap(transport) (the traced transport of
// --tracing-config-file); a nil wrap returns m.
func (m *ClientManager) WithTransportWrapper(wrap func(http.RoundTripper) http.RoundTripper) *ClientManager {
	if wrap == nil {
		return m
	}
	out := m.copy()
	out.wrap = wrap
	return out
}

// copy is m's settings with an empty client cache.
func (m *ClientManager) copy() *ClientManager {
	out := NewClientManager(m.resolver, m.timeout)
	out.maxResponseBytes = m.maxResponseBytes
	out.authInfo = m.authInfo
	out.wrap = m.wrap
	return out
}

// NewClientManager returns a manager whose clients resolve services with
// resolver (nil means DefaultServiceResolver) and give up after timeout
// (zero or less means upstream's 30s).
func NewClientManager(resolver ServiceResolver, timeout time.Duration) *ClientManager {
	if resolver == nil {
		resolver = DefaultServiceResolver()
	}
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	// An evicted client will not be used again; free its connections.
	cache := lru.NewWithEvictionFunc(cacheSize, func(_ lru.Key, v any) {
		v.(*Client).http.CloseIdleConnections()
	})
	return &ClientManager{resolver: resolver, timeout: timeout, cache: cache, maxResponseBytes: maxResponseBytes}
}

// Client is a webhook client built from one ClientConfig.
type Client struct {
	name     string
	url      string
	http     *http.Client
	maxBytes int64
}

// Client returns a cached client for cfg (keyed by the whole config; safe for concurrent use).
func (m *ClientManager) Client(cfg ClientConfig) (*Client, error) {
	key, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if c, ok := m.cache.Get(string(key)); ok {
		return c.(*Client), nil
	}
	c, err := m.newClient(cfg)
	if err != nil {
		return nil, err
	}
	m.cache.Add(string(key), c)
	return c, nil
}

func (m *ClientManager) newClient(cfg ClientConfig) (*Client, error) {
	fail := func(err error) error { return &ErrCallingWebhook{WebhookName: cfg.Name, Reason: err} }
	roots, err := rootPool(cfg.CABundle)
	if err != nil {
		return nil, fail(err)
	}
	tlsConfig := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	var dialer net.Dialer
	dial := dialer.DialContext
	var target, authHost string

	switch {
	case cfg.Service != nil:
		svc := *cfg.Service
		if svc.Port == 0 {
			svc.Port = 443
		}
		// The certificate must be valid for the service's DNS name, whatever
		// address the resolver returns.
		serverName := svc.Name + "." + svc.Namespace + ".svc"
		tlsConfig.ServerName = serverName
		host := net.JoinHostPort(serverName, strconv.Itoa(int(svc.Port)))
		authHost = host
		target = (&url.URL{Scheme: "https", Host: host, Path: svc.Path}).String()
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == host {
				u, err := m.resolver.ResolveEndpoint(svc.Namespace, svc.Name, svc.Port)
				if err != nil {
					return nil, err
				}
				addr = hostPort(u)
			}
			return dialer.DialContext(ctx, network, addr)
		}
	case cfg.URL != "":
		u, err := url.Parse(cfg.URL)
		if err != nil {
			// Only the cause: the URL itself may carry user information.
			var uerr *url.Error
			if errors.As(err, &uerr) {
				err = uerr.Err
			}
			return nil, fail(fmt.Errorf("Unparsable URL: %v", err)) // upstream's wording
		}
		if u.Scheme != "https" && u.Scheme != "http" {
			return nil, fail(fmt.Errorf("unsupported URL scheme %q", u.Scheme))
		}
		target, authHost = u.String(), u.Host
	default:
		return nil, fail(errors.New("webhook configuration must have either service or URL"))
	}

	transport := &http.Transport{
		DialContext:         dial,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
	}
	var rt http.RoundTripper = transport
	if m.authInfo != nil {
		if ai := m.authInfo.forHost(authHost); ai != nil {
			creds, err := credentialsOf(ai)
			if err != nil {
				return nil, fail(err)
			}
			if creds.cert != nil {
				tlsConfig.Certificates = []tls.Certificate{*creds.cert}
			}
			if creds.authorization != nil {
				rt = &authTransport{next: transport, authorization: creds.authorization}
			}
		}
	}
	if m.wrap != nil {
		rt = m.wrap(rt)
	}
	return &Client{
		name:     cfg.Name,
		url:      target,
		http:     &http.Client{Transport: rt, Timeout: m.timeout},
		maxBytes: m.maxResponseBytes,
	}, nil
}

// hostPort is u's host with the scheme's default port filled in.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// rootPool parses a PEM CA bundle; empty means the system roots.
func rootPool(bundle []byte) (*x509.CertPool, error) {
	if len(bundle) == 0 {
		return nil, nil
	}
	pool := x509.NewCertPool()
	blocks, certs := 0, 0
	for rest := bundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		blocks++
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("unable to load root certificates: failed to parse certificate: %w", err)
		}
		pool.AddCert(cert)
		certs++
	}
	switch {
	case blocks == 0:
		return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
	case certs == 0:
		return nil, errors.New("unable to load root certificates: no valid certificate authority data seen")
	}
	return pool, nil
}

// Post sends in as JSON to the webhook and decodes the JSON answer into out.
func (c *Client) Post(ctx context.Context, in, out any) error {
	return c.PostWithTimeout(ctx, 0, in, out)
}

// PostWithTimeout is Post with the call's timeout also passed to the
// webhook as the ?timeout= query parameter, as upstream's admission
// webhook client does (zero passes none).
func (c *Client) PostWithTimeout(ctx context.Context, timeout time.Duration, in, out any) error {
	fail := func(err error) error { return &ErrCallingWebhook{WebhookName: c.name, Reason: err} }
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encoding the request to webhook %q: %w", c.name, err)
	}
	target := c.url
	if timeout > 0 {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + "timeout=" + timeout.String()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fail(err)
	}
	defer func() {
		// Drain a little so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
	}()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return fail(fmt.Errorf("reading the response: %w", err))
	}
	if int64(len(data)) > c.maxBytes {
		return fail(fmt.Errorf("the response is larger than %d bytes", c.maxBytes))
	}
	// client-go's success range, which the upstream webhook client uses.
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		st := statusError(resp, data)
		return &ErrCallingWebhook{WebhookName: c.name, Reason: st, Status: st}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			// The caller gave up while the webhook was answering: its
			// server saw the request end and sent nothing. The
			// cancellation is the cause, not the empty body.
			return fail(fmt.Errorf("decoding the response: %w", ctxErr))
		}
		return fail(fmt.Errorf("decoding the response: %w", err))
	}
	return nil
}

// statusError is the error of a non-2xx answer: the Status the webhook sent,
// or a generic one carrying the start of a text body, as client-go builds it.
func statusError(resp *http.Response, body []byte) *apierrors.StatusError {
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if media == "application/json" {
		var st metav1.Status
		if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Status == metav1.StatusFailure {
			return &apierrors.StatusError{ErrStatus: st}
		}
	}
	message := "unknown"
	if resp.Header.Get("Content-Type") == "" || strings.HasPrefix(media, "text/") {
		if len(body) > maxErrorTextBytes {
			body = body[:maxErrorTextBytes]
		}
		message = strings.TrimSpace(string(body))
	}
	retryAfter, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, retryAfter, true)
}
