package openapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

// specInfo is the info of every document.
func (s *Service) specInfo() *spec.Info {
	info := &spec.Info{InfoProps: spec.InfoProps{Title: s.info.Title, Version: s.info.Version}}
	if info.Title == "" {
		info.Title = "Kubernetes"
	}
	if info.Version == "" {
		info.Version = "unversioned"
	}
	return info
}

// The security scheme kube-apiserver announces: a bearer token in the
// authorization header.
const (
	securityName        = "BearerToken"
	securityDescription = "Bearer Token authentication"
)

// encodeV3 builds and encodes the v3 document of src, with a builder of
// its own: the reflected definitions are garbage once it is encoded.
func (s *Service) encodeV3(src *source, modified time.Time) *encodedDoc {
	s.encodes.Add(1)
	paths, schemas := src.v3Content(definitions.NewBuilder(s.scheme))
	doc := &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    s.specInfo(),
		Paths:   &spec3.Paths{Paths: paths},
		Components: &spec3.Components{
			Schemas: schemas,
			SecuritySchemes: spec3.SecuritySchemes{securityName: &spec3.SecurityScheme{
				SecuritySchemeProps: spec3.SecuritySchemeProps{Type: "apiKey", Name: "authorization", In: "header", Description: securityDescription},
			}},
		},
	}
	// The document's own marshaler, not json.Marshal, which would
	// re-validate and compact its output.
	b, err := doc.MarshalJSON()
	if err != nil {
		return failedDoc(fmt.Errorf("encoding the OpenAPI v3 document %q: %w", src.key, err))
	}
	return newEncodedDoc(b, src.hash, modified, v3ToProto)
}

// encodeV2 builds and encodes the one v2 document of every source, with
// one builder for all of them (they share most types), dropped after.
func (s *Service) encodeV2(srcs []*source, remotes []RemoteV2, modified time.Time) *encodedDoc {
	s.encodes.Add(1)
	b := definitions.NewBuilder(s.scheme)
	paths := map[string]spec.PathItem{}
	defs := spec.Definitions{}
	for _, src := range srcs {
		p, d := src.v2Content(b)
		maps.Copy(paths, p)
		for name, def := range d {
			defs[name] = withoutDefaults(def)
		}
	}
	doc := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        s.specInfo(),
		Paths:       &spec.Paths{Paths: paths},
		Definitions: defs,
		SecurityDefinitions: spec.SecurityDefinitions{securityName: &spec.SecurityScheme{
			SecuritySchemeProps: spec.SecuritySchemeProps{Type: "apiKey", Name: "authorization", In: "header", Description: securityDescription},
		}},
		Security: []map[string][]string{{securityName: {}}},
	}}
	if err := mergeRemoteV2(doc, remotes); err != nil {
		s.logger().Error("aggregated servers' OpenAPI v2 documents left out", "err", err)
	}
	js, err := doc.MarshalJSON()
	if err != nil {
		return failedDoc(fmt.Errorf("encoding the OpenAPI v2 document: %w", err))
	}
	return newEncodedDoc(js, computeETag(js), modified, v2ToProto)
}

// v3Index is the body of /openapi/v3.
type v3Index struct {
	Paths map[string]v3IndexEntry `json:"paths"`
}

type v3IndexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// serverRelativeURL is where the document key with the given hash is
// served; the hash makes the URL immutable, so clients may cache it.
func serverRelativeURL(key, hash string) string {
	u := url.URL{Path: "/openapi/v3/" + key, RawQuery: url.Values{"hash": {hash}}.Encode()}
	return u.String()
}

// v3Docs is one immutable snapshot of the v3 documents and their index,
// swapped whole so that a request sees an index and documents that agree.
type v3Docs struct {
	index *encodedDoc
	docs  map[string]*lazyDoc
	// remote serves the documents of aggregated servers, by key.
	remote map[string]http.Handler
}

// lazyDoc is one v3 document: its hash, known from its source, and its
// encoding, made on the first request for it and then kept. Concurrent
// first requests wait for one encoding.
type lazyDoc struct {
	src      *source
	s        *Service
	modified time.Time

	once sync.Once
	doc  *encodedDoc
}

// get returns the encoded document; one that failed to encode has err
// set, and stays failed until its source changes.
func (l *lazyDoc) get() *encodedDoc {
	l.once.Do(func() { l.doc = l.s.encodeV3(l.src, l.modified) })
	return l.doc
}

// newV3DocsLocked is the snapshot of the current sources. Documents whose
// source hash is unchanged are taken from old, encoded or not; when all
// are, old itself is kept, index and all.
func (s *Service) newV3DocsLocked(old *v3Docs) *v3Docs {
	docs := make(map[string]*lazyDoc, len(s.sources))
	reused := 0
	for key, src := range s.sources {
		if o := old.docs[key]; o != nil && o.src.hash == src.hash {
			docs[key] = o
			reused++
			continue
		}
		docs[key] = &lazyDoc{src: src, s: s, modified: s.now()}
	}
	if reused == len(docs) && len(docs) == len(old.docs) && old.index != nil {
		return old
	}
	index := v3Index{Paths: make(map[string]v3IndexEntry, len(docs))}
	for key, d := range docs {
		index.Paths[key] = v3IndexEntry{ServerRelativeURL: serverRelativeURL(key, d.src.hash)}
	}
	remoteURLs, remote := s.remoteV3Locked(docs)
	for key, u := range remoteURLs {
		index.Paths[key] = v3IndexEntry{ServerRelativeURL: u}
	}
	b, err := json.Marshal(index)
	if err != nil {
		// a map of strings always marshals
		panic(fmt.Sprintf("encoding the OpenAPI v3 index: %v", err))
	}
	return &v3Docs{index: newEncodedDoc(b, computeETag(b), s.now(), nil), docs: docs, remote: remote}
}

// sortedSources lists sources by key, so that the v2 document does not
// depend on map order.
func sortedSources(sources map[string]*source) []*source {
	out := slices.Collect(maps.Values(sources))
	slices.SortFunc(out, func(a, b *source) int { return cmp.Compare(a.key, b.key) })
	return out
}

// lazyV2 is the v2 document of one set of sources, encoded on first use:
// the document merges every group version, so it is built only when
// asked for, and a custom resource change marks it stale rather than
// re-encoding megabytes per change.
type lazyV2 struct {
	srcs     []*source
	remotes  []RemoteV2
	s        *Service
	modified time.Time
	// prev is the last good document before this one, served if this
	// one fails to encode. Set once at creation.
	prev *encodedDoc

	once sync.Once
	doc  *encodedDoc
	err  error
	good atomic.Pointer[encodedDoc] // doc once encoded without error
}

// newLazyV2Locked returns the v2 document of the current sources; old is
// the one it replaces, if any, kept when its sources are the same.
func (s *Service) newLazyV2Locked(old *lazyV2) *lazyV2 {
	srcs := sortedSources(s.sources)
	remotes := s.sortedRemoteV2Locked()
	if old != nil && slices.EqualFunc(old.srcs, srcs, func(a, b *source) bool { return a.key == b.key && a.hash == b.hash }) &&
		slices.EqualFunc(old.remotes, remotes, func(a, b RemoteV2) bool { return a.Name == b.Name && a.Version == b.Version }) {
		return old
	}
	l := &lazyV2{srcs: srcs, remotes: remotes, s: s, modified: s.now()}
	if old != nil {
		l.prev = old.lastGood()
	}
	return l
}

// get returns the document to serve and the error of encoding this one.
// The document is the previous good one (or nil) when encoding failed.
func (l *lazyV2) get() (*encodedDoc, error) {
	l.once.Do(func() {
		d := l.s.encodeV2(l.srcs, l.remotes, l.modified)
		if d.err != nil {
			l.doc, l.err = l.prev, d.err
			return
		}
		l.doc = d
		l.good.Store(d)
	})
	return l.doc, l.err
}

// lastGood is the newest good document this one knows of, without
// encoding anything: its own if encoded, else the one before it.
func (l *lazyV2) lastGood() *encodedDoc {
	if d := l.good.Load(); d != nil {
		return d
	}
	return l.prev
}
