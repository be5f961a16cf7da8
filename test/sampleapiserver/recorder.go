package sampleapiserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// Request is what the server knew of a request for its resources once
// its filters had authenticated and authorized it: the caller, as its
// authentication found it (kapi's X-Remote-* headers, behind the
// front-proxy certificate, or a delegated TokenReview), and what was
// asked.
type Request struct {
	User      string
	UID       string
	Groups    []string
	Extra     map[string][]string
	Verb      string
	Namespace string
	Resource  string
	Name      string
}

// Review is a TokenReview or SubjectAccessReview the server sent to kapi,
// with kapi's answer.
type Review struct {
	// Kind is TokenReview or SubjectAccessReview.
	Kind string
	// User and Groups are, for a SubjectAccessReview, whom the server
	// asked about; for a TokenReview, whom kapi found the token to be.
	User   string
	Groups []string
	// Verb, Group, Resource and Namespace are a SubjectAccessReview's
	// resource attributes.
	Verb, Group, Resource, Namespace string
	// Allowed is a SubjectAccessReview's status.allowed, or a
	// TokenReview's status.authenticated.
	Allowed bool
	// Code is the HTTP status of kapi's answer.
	Code int
}

// Read is a GET the server's delegated authentication sent to kapi,
// such as that of the front-proxy settings in
// kube-system/extension-apiserver-authentication.
type Read struct {
	// Path and Query are the request's URL path and raw query.
	Path, Query string
	// Code is the HTTP status of kapi's answer.
	Code int
}

// recorder keeps the Requests, Reviews and Reads of one server.
type recorder struct {
	mu       sync.Mutex
	requests []Request
	reviews  []Review
	reads    []Read
}

func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

func (r *recorder) Reviews() []Review {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reviews)
}

func (r *recorder) Reads() []Read {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reads)
}

// wrap records every resource request of the group that reaches next,
// the server's API handler, which runs after authentication and
// authorization.
func (r *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		u, uok := request.UserFrom(req.Context())
		if ok && uok && info.IsResourceRequest && info.APIGroup == GroupName {
			r.mu.Lock()
			r.requests = append(r.requests, Request{
				User: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra(),
				Verb: info.Verb, Namespace: info.Namespace, Resource: info.Resource, Name: info.Name,
			})
			r.mu.Unlock()
		}
		next.ServeHTTP(w, req)
	})
}

// roundTripper wraps the transport of the delegated authenticator and
// authorizer to record the reviews they send to kapi and what they read
// from it. It is the options' CustomRoundTripperFn.
func (r *recorder) roundTripper(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		var kind string
		switch {
		case req.Method == http.MethodGet:
			resp, err := next.RoundTrip(req)
			if err == nil {
				r.mu.Lock()
				r.reads = append(r.reads, Read{Path: req.URL.Path, Query: req.URL.RawQuery, Code: resp.StatusCode})
				r.mu.Unlock()
			}
			return resp, err
		case req.Method != http.MethodPost:
		case strings.HasSuffix(req.URL.Path, "/tokenreviews"):
			kind = "TokenReview"
		case strings.HasSuffix(req.URL.Path, "/subjectaccessreviews"):
			kind = "SubjectAccessReview"
		}
		if kind == "" {
			return next.RoundTrip(req)
		}
		var sent []byte
		if req.GetBody != nil {
			if body, err := req.GetBody(); err == nil {
				sent, _ = io.ReadAll(body)
				_ = body.Close()
			}
		}
		resp, err := next.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		got, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(got))
		if err != nil {
			return resp, nil // the client sees the truncated body and fails as it would
		}
		r.mu.Lock()
		r.reviews = append(r.reviews, review(kind, sent, got, resp.StatusCode))
		r.mu.Unlock()
		return resp, nil
	})
}

// review reads a review from the JSON the server sent and kapi answered;
// what does not decode stays empty.
func review(kind string, sent, answer []byte, code int) Review {
	rv := Review{Kind: kind, Code: code}
	switch kind {
	case "TokenReview":
		var tr authenticationv1.TokenReview
		_ = json.Unmarshal(answer, &tr)
		rv.User, rv.Groups, rv.Allowed = tr.Status.User.Username, tr.Status.User.Groups, tr.Status.Authenticated
	case "SubjectAccessReview":
		var asked, sar authorizationv1.SubjectAccessReview
		_ = json.Unmarshal(sent, &asked)
		_ = json.Unmarshal(answer, &sar)
		rv.User, rv.Groups, rv.Allowed = asked.Spec.User, asked.Spec.Groups, sar.Status.Allowed
		if a := asked.Spec.ResourceAttributes; a != nil {
			rv.Verb, rv.Group, rv.Resource, rv.Namespace = a.Verb, a.Group, a.Resource, a.Namespace
		}
	}
	return rv
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
