package server

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/server/filters"
	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// DelegationTarget is what a server hands to the server before it in the
// chain. Every method reports the target's own share only; NextDelegate
// leads to the rest, and the outermost server's PrepareRun walks it.
type DelegationTarget interface {
	// UnprotectedHandler serves requests without filters: the outer
	// server has already filtered them.
	UnprotectedHandler() http.Handler
	PostStartHooks() map[string]PostStartHookFunc
	PreShutdownHooks() map[string]PreShutdownHookFunc
	HealthzChecks() []healthz.Check
	ReadyzChecks() []healthz.Check
	LivezChecks() []healthz.Check
	// ListedPaths are the paths this target lists at "/".
	ListedPaths() []string
	// NextDelegate is the next target, nil at the end of the chain.
	NextDelegate() DelegationTarget
}

// NewNotFoundDelegate returns the end of every chain: it answers everything
// with kube-apiserver's 404 Status and has no hooks, checks or paths.
func NewNotFoundDelegate() DelegationTarget {
	return notFoundDelegate{}
}

type notFoundDelegate struct{}

var _ DelegationTarget = notFoundDelegate{}

func (notFoundDelegate) UnprotectedHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// The generic 404 gives {"message":"the server could not find the
		// requested resource","reason":"NotFound","details":{}}, byte for
		// byte what clients see from kube-apiserver.
		filters.WriteStatus(w, apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false))
	})
}
func (notFoundDelegate) PostStartHooks() map[string]PostStartHookFunc     { return nil }
func (notFoundDelegate) PreShutdownHooks() map[string]PreShutdownHookFunc { return nil }
func (notFoundDelegate) HealthzChecks() []healthz.Check                   { return nil }
func (notFoundDelegate) ReadyzChecks() []healthz.Check                    { return nil }
func (notFoundDelegate) LivezChecks() []healthz.Check                     { return nil }
func (notFoundDelegate) ListedPaths() []string                            { return nil }
func (notFoundDelegate) NextDelegate() DelegationTarget                   { return nil }

// delegationChain returns d and every target after it, outermost first.
func delegationChain(d DelegationTarget) []DelegationTarget {
	var chain []DelegationTarget
	for ; d != nil; d = d.NextDelegate() {
		chain = append(chain, d)
	}
	return chain
}

// mergeChecks gathers one kind of check across chain, innermost server
// first (so the output reads in the order servers are built, as upstream),
// keeping the first check of each name: every server has "ping".
func mergeChecks(chain []DelegationTarget, checks func(DelegationTarget) []healthz.Check) []healthz.Check {
	var merged []healthz.Check
	seen := map[string]bool{}
	for i := len(chain) - 1; i >= 0; i-- {
		for _, c := range checks(chain[i]) {
			if seen[c.Name()] {
				continue
			}
			seen[c.Name()] = true
			merged = append(merged, c)
		}
	}
	return merged
}
