package openapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
)

// part is what one v3 document describes, and what it adds to the v2
// document: a group version, or a discovery root ("apis", "version").
// It is immutable once built, so snapshots share it.
type part struct {
	key     string
	v2Paths map[string]spec.PathItem
	v3Paths map[string]*spec3.Path
	v2Defs  map[string]spec.Schema
	v3Defs  map[string]*spec.Schema
}

// groupVersionPart describes the resources of gv. Definitions come from
// the builder for roots and for the types the routes refer to; explicit
// definitions (custom resources) are added over them.
func (s *Service) groupVersionPart(gv schema.GroupVersion, resources []routes.Resource, roots []reflect.Type, v2 map[string]spec.Schema, v3 map[string]*spec.Schema) *part {
	paths := routes.Build(gv, resources)
	roots = append(slices.Clip(roots), paths.Types...)
	// Copied: the builder may hand out maps it keeps.
	v2Defs := merged(s.definitions.V2(roots...), v2)
	v3Defs := merged(s.definitions.V3(roots...), v3)
	scopeGVKs(v3Defs, gv.Group, gv.Version)
	return &part{key: keyOf(gv), v2Paths: paths.V2, v3Paths: paths.V3, v2Defs: v2Defs, v3Defs: v3Defs}
}

// merged is a new map of base's entries and extra's over them.
func merged[V any](base, extra map[string]V) map[string]V {
	out := make(map[string]V, len(base)+len(extra))
	maps.Copy(out, base)
	maps.Copy(out, extra)
	return out
}

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

// encodeV3 encodes the v3 document of p.
func (s *Service) encodeV3(p *part) *encodedDoc {
	doc := &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    s.specInfo(),
		Paths:   &spec3.Paths{Paths: p.v3Paths},
		Components: &spec3.Components{
			Schemas: p.v3Defs,
			SecuritySchemes: spec3.SecuritySchemes{securityName: &spec3.SecurityScheme{
				SecuritySchemeProps: spec3.SecuritySchemeProps{Type: "apiKey", Name: "authorization", In: "header", Description: securityDescription},
			}},
		},
	}
	// The document's own marshaler, not json.Marshal, which would
	// re-validate and compact its output: a fifth of Build.
	b, err := doc.MarshalJSON()
	if err != nil {
		return failedDoc(fmt.Errorf("encoding the OpenAPI v3 document %q: %w", p.key, err))
	}
	return newEncodedDoc(b, s.now(), v3ToProto)
}

// encodeV2 encodes the one v2 document of every part.
func (s *Service) encodeV2(parts []*part) *encodedDoc {
	paths := map[string]spec.PathItem{}
	raw := map[string]spec.Schema{}
	for _, p := range parts {
		maps.Copy(paths, p.v2Paths)
		maps.Copy(raw, p.v2Defs)
	}
	defs := make(spec.Definitions, len(raw))
	for name, d := range raw {
		defs[name] = withoutDefaults(d)
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
	b, err := doc.MarshalJSON()
	if err != nil {
		return failedDoc(fmt.Errorf("encoding the OpenAPI v2 document: %w", err))
	}
	return newEncodedDoc(b, s.now(), v2ToProto)
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
	docs  map[string]*encodedDoc
}

// newV3Docs indexes docs. A document that failed to encode is served as
// unavailable but not listed.
func (s *Service) newV3Docs(docs map[string]*encodedDoc) *v3Docs {
	index := v3Index{Paths: make(map[string]v3IndexEntry, len(docs))}
	for key, d := range docs {
		if d.err == nil {
			index.Paths[key] = v3IndexEntry{ServerRelativeURL: serverRelativeURL(key, d.etag)}
		}
	}
	b, err := json.Marshal(index)
	if err != nil {
		// a map of strings always marshals
		panic(fmt.Sprintf("encoding the OpenAPI v3 index: %v", err))
	}
	return &v3Docs{index: newEncodedDoc(b, s.now(), nil), docs: docs}
}

// sortedParts lists parts by key, so that the v2 document does not
// depend on map order.
func sortedParts(parts map[string]*part) []*part {
	out := slices.Collect(maps.Values(parts))
	slices.SortFunc(out, func(a, b *part) int { return cmp.Compare(a.key, b.key) })
	return out
}
