// Package server is the generic API server every kapi server (aggregator,
// core, extensions) is built on: a Director over an API mux and a non-API
// mux, one filter chain around it, delegation to the next server in the
// chain, post-start and pre-shutdown hooks, /healthz, /livez, /readyz,
// /version, secure serving and graceful termination.
//
// The flow is Config → New → PrepareRun → Run. Servers form a chain through
// DelegationTarget: a request no mux of a server claims goes to the next
// server's unprotected handler, and the outermost server's PrepareRun
// gathers the hooks and health checks of the whole chain and runs them once.
package server
