package negotiation

import (
	"slices"
	"testing"
)

// FuzzNegotiateMediaTypeOptions feeds arbitrary Accept headers, which any
// client controls: negotiation must not panic and may only pick a media
// type the server has.
func FuzzNegotiateMediaTypeOptions(f *testing.F) {
	for _, seed := range []string{
		"", "*/*", "*", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json",
		"application/vnd.kubernetes.protobuf;q=0.9,*/*;q=0.1", "a/b/c;;q=x;=;a==b", ",,;", "application/json;stream=watch",
	} {
		f.Add(seed)
	}
	infos := codecs(f).SupportedMediaTypes()
	var types []string
	for _, i := range infos {
		types = append(types, i.MediaType)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		for _, r := range []EndpointRestrictions{NoTransform{}, allowTable{}} {
			got, ok := NegotiateMediaTypeOptions(accept, infos, r)
			if ok && !slices.Contains(types, got.Accepted.MediaType) {
				t.Errorf("%q: picked %q", accept, got.Accepted.MediaType)
			}
		}
	})
}
