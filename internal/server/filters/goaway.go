package filters

import (
	"math/rand/v2"
	"net/http"
)

// WithProbabilisticGoaway asks Go's HTTP/2 server, for a random fraction
// chance of HTTP/2 requests, to send a GOAWAY (by the Connection: close
// response header, which HTTP/2 otherwise forbids): requests in flight on
// the connection finish, and the client opens a new connection for the
// next ones, which a load balancer may send to another server. That keeps
// long-lived HTTP/2 clients from sticking to one server, as kube-apiserver's
// --goaway-chance does. HTTP/1 requests are left alone. chance <= 0 returns
// next.
func WithProbabilisticGoaway(next http.Handler, chance float64) http.Handler {
	return withGoaway(next, chance, rand.Float64)
}

func withGoaway(next http.Handler, chance float64, random func() float64) http.Handler {
	if chance <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && random() < chance {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
