package endpoints_test

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkVerbs measures the handler path (negotiation, decoding,
// encoding) of create, get and list against the in-memory fake.
func BenchmarkVerbs(b *testing.B) {
	env := newTestEnv(b)
	for i := range 100 {
		env.seed(b, configMap("ns1", fmt.Sprintf("seed-%d", i), map[string]string{"k": "v"}))
	}
	b.Run("create", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c-%d"},"data":{"k":"v"}}`, i)
			if rec := env.do(b, "POST", cmPath, body); rec.Code != http.StatusCreated {
				b.Fatal(rec.Body)
			}
		}
	})
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf", tableAccept} {
		b.Run("get "+accept, func(b *testing.B) {
			for b.Loop() {
				if rec := env.do(b, "GET", cmPath+"/seed-1", "", "Accept", accept); rec.Code != http.StatusOK {
					b.Fatal(rec.Body)
				}
			}
		})
		b.Run("list 100 "+accept, func(b *testing.B) {
			for b.Loop() {
				if rec := env.do(b, "GET", cmPath+"?labelSelector=app%21%3Dnone&limit=500", "", "Accept", accept); rec.Code != http.StatusOK {
					b.Fatal(rec.Body)
				}
			}
		})
	}
}
