package server

import (
	"fmt"
	"strings"
	"testing"
)

// fiftyFieldCRD is the widget CRD with 50 string fields in spec.
func fiftyFieldCRD(b *testing.B) (*testEnv, string) {
	var propsJS, values []string
	for i := range 50 {
		propsJS = append(propsJS, fmt.Sprintf(`"f%d":{"type":"string","default":"d"}`, i))
		values = append(values, fmt.Sprintf(`"f%d":"v%d"`, i, i))
	}
	crd := realWidgetCRD(b)
	crd.Spec.Versions[0].Schema = props(b, `{"type":"object","properties":{"spec":{"type":"object","properties":{`+strings.Join(propsJS, ",")+`}}}}`)
	return newRealEnv(b, envOptions{}, crd), "{" + strings.Join(values, ",") + "}"
}

func BenchmarkCreateCustomResource(b *testing.B) {
	e, spec := fiftyFieldCRD(b)
	i := 0
	for b.Loop() {
		i++
		if code, body := e.do(b, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", widget("v1", fmt.Sprintf("w%d", i), spec)); code != 201 {
			b.Fatalf("%d %s", code, body)
		}
	}
}

func BenchmarkGetCustomResource(b *testing.B) {
	e, spec := fiftyFieldCRD(b)
	if code, body := e.do(b, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", widget("v1", "w", spec)); code != 201 {
		b.Fatalf("%d %s", code, body)
	}
	for b.Loop() {
		if code, body := e.do(b, "GET", "/apis/example.com/v1/namespaces/ns1/widgets/w", ""); code != 200 {
			b.Fatalf("%d %s", code, body)
		}
	}
}
