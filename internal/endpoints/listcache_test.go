package endpoints_test

import (
	"bytes"
	"net/http"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/storage"
)

// TestCachedListItemsAreTheEncodersBytes pins that a list whose items'
// bytes come from the cache's encodings is the response the buffered
// codecs give, on the list that records them and on the lists that reuse
// them, in every encoding and with gzip; encodings the cache does not
// keep (protobuf, YAML, pretty JSON, Table, metadata) are unchanged.
func TestCachedListItemsAreTheEncodersBytes(t *testing.T) {
	accepts := []string{
		"application/json",
		k8sruntime.ContentTypeProtobuf,
		"application/yaml",
		"application/json;as=Table;v=v1;g=meta.k8s.io",
		"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
	}
	for _, n := range []int{1, 3, 500} {
		store := newBigConfigMaps(n, 1024)
		store.cont = "next-page"
		cached := newTestEnv(t, withBigConfigMaps(store.withSources()))
		plain := *store
		plain.encs = nil
		buffered := newTestEnv(t, withBigConfigMaps(&plain), func(g *endpoints.APIGroupVersion) {
			g.Codecs = serializer.NewCodecFactory(g.Scheme)
		})
		for _, path := range []string{bigPath, bigPath + "?pretty=true"} {
			for _, accept := range accepts {
				for _, encoding := range []string{"", "gzip"} {
					headers := []string{"Accept", accept, "Accept-Encoding", encoding}
					want := buffered.do(t, http.MethodGet, path, "", headers...)
					wantBody := decoded(t, want)
					for round := range 2 {
						got := cached.do(t, http.MethodGet, path, "", headers...)
						gotBody := decoded(t, got)
						if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") ||
							got.Header().Get("Content-Encoding") != want.Header().Get("Content-Encoding") || !bytes.Equal(gotBody, wantBody) {
							t.Errorf("%d items, %s %s %s, list %d: body (%d) differs from the buffered one (%d):\n%.300s\nwant\n%.300s",
								n, path, accept, encoding, round+1, got.Code, want.Code, gotBody, wantBody)
						}
					}
				}
			}
		}
	}
}

// TestCachedListReusesItemBytes shows the bytes are reused: once a list
// recorded an item's encoding, a later list writes those bytes even when
// the item it holds differs (which the cache never lets happen: a changed
// object is a new version with no encodings). A new version is encoded
// afresh.
func TestCachedListReusesItemBytes(t *testing.T) {
	store := newBigConfigMaps(3, 10).withSources()
	env := newTestEnv(t, withBigConfigMaps(store))
	first := env.do(t, http.MethodGet, bigPath, "", "Accept", "application/json").Body.String()

	store.items[1].Data = map[string]string{"payload": "changed"}
	if got := env.do(t, http.MethodGet, bigPath, "", "Accept", "application/json").Body.String(); got != first {
		t.Errorf("the second list encoded its items again:\n%s\nwant\n%s", got, first)
	}

	store.encs[1] = new(storage.ItemEncodings)
	got := env.do(t, http.MethodGet, bigPath, "", "Accept", "application/json").Body.String()
	if !bytes.Contains([]byte(got), []byte(`"payload":"changed"`)) {
		t.Errorf("a new version was not encoded:\n%s", got)
	}
}
