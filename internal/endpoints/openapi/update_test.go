package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
)

var stableV1 = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}

const (
	cronTab     = "com.example.stable.v1.CronTab"
	cronTabList = "com.example.stable.v1.CronTabList"
)

// cronTabs describes a custom resource as issue 7's CRD handler will:
// resources and explicit definitions. description tells versions apart.
func cronTabs(description string) ([]routes.Resource, map[string]spec.Schema, map[string]*spec.Schema) {
	resources := []routes.Resource{{
		GroupVersion: stableV1,
		APIResource:  metav1.APIResource{Name: "crontabs", Namespaced: true, Kind: "CronTab", Verbs: allVerbs},
		Kind:         stableV1.WithKind("CronTab"),
		Object:       cronTab,
		List:         cronTabList,
		PatchTypes:   []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"},
	}}
	object := func() spec.Schema {
		s := *spec.MapProperty(nil)
		s.Description = description
		cronSpec := *spec.StringProperty()
		cronSpec.Default = "every minute"
		s.Properties = map[string]spec.Schema{"cronSpec": cronSpec}
		return s
	}
	list := func(ref string) spec.Schema {
		s := *spec.MapProperty(nil)
		s.Properties = map[string]spec.Schema{"items": *spec.ArrayProperty(spec.RefSchema(ref + cronTab))}
		return s
	}
	v2 := map[string]spec.Schema{cronTab: object(), cronTabList: list("#/definitions/")}
	o, l := object(), list("#/components/schemas/")
	v3 := map[string]*spec.Schema{cronTab: &o, cronTabList: &l}
	return resources, v2, v3
}

func TestUpdateAndRemoveGroupVersion(t *testing.T) {
	s := newSmallService(t)
	h := serve(s)
	key := keyOf(stableV1)
	before, _ := index(t, h)
	docsBefore := s.v3.Load().docs
	v2Before, _ := s.v2.Load().get()
	if _, ok := before.Paths[key]; ok {
		t.Fatalf("index has %s before the update", key)
	}

	updateCronTabs(s, "first")
	after, _ := index(t, h)
	first, ok := after.Paths[key]
	if !ok {
		t.Fatalf("index lacks %s after the update", key)
	}
	sameOthers(t, before, after, key)
	for k, d := range s.v3.Load().docs {
		if k != key && d != docsBefore[k] {
			t.Errorf("document %s re-encoded by another group version's update", k)
		}
	}
	if s.v2.Load().good.Load() != nil {
		t.Error("the v2 document was encoded before anyone asked for it")
	}
	doc := v3Doc(t, h, first.ServerRelativeURL)
	if got := doc.Components.Schemas[cronTab]; got == nil || got.Description != "first" || got.Properties["cronSpec"].Default == nil {
		t.Errorf("schema %s: %+v, want the given one with its default", cronTab, got)
	}
	if _, ok := doc.Paths.Paths["/apis/stable.example.com/v1/"]; !ok {
		t.Error("no discovery path in the document")
	}
	v2 := v2Doc(t, h)
	if got, ok := v2.Definitions[cronTab]; !ok || got.Description != "first" || got.Properties["cronSpec"].Default != nil {
		t.Errorf("v2 definition %s: %+v, want it without defaults", cronTab, got)
	}
	if _, ok := v2.Definitions["io.k8s.api.apps.v1.Deployment"]; !ok {
		t.Error("v2 lost the built-in definitions")
	}
	if d, _ := s.v2.Load().get(); d.etag == v2Before.etag {
		t.Error("v2 ETag unchanged by the update")
	}

	// A new version of the definitions: a new hash; the old URL redirects.
	updateCronTabs(s, "second")
	again, _ := index(t, h)
	second := again.Paths[key]
	if second.ServerRelativeURL == first.ServerRelativeURL {
		t.Fatal("hash unchanged by a changed document")
	}
	sameOthers(t, before, again, key)
	rec := get(t, h, http.MethodGet, first.ServerRelativeURL, nil)
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != second.ServerRelativeURL {
		t.Errorf("old hash: %d to %q, want 301 to %q", rec.Code, rec.Header().Get("Location"), second.ServerRelativeURL)
	}
	if got := v2Doc(t, h).Definitions[cronTab].Description; got != "second" {
		t.Errorf("v2 description %q after the second update, want second", got)
	}

	s.RemoveGroupVersion(stableV1)
	removed, _ := index(t, h)
	if _, ok := removed.Paths[key]; ok {
		t.Errorf("index still has %s", key)
	}
	sameOthers(t, before, removed, key)
	if rec := get(t, h, http.MethodGet, second.ServerRelativeURL, nil); rec.Code != http.StatusNotFound {
		t.Errorf("removed document: status %d, want 404", rec.Code)
	}
	if _, ok := v2Doc(t, h).Definitions[cronTab]; ok {
		t.Error("v2 still has the removed definitions")
	}
	// Removing what is not there changes nothing.
	s.RemoveGroupVersion(stableV1)
	if again, _ := index(t, h); len(again.Paths) != len(before.Paths) {
		t.Errorf("index has %d entries, want %d", len(again.Paths), len(before.Paths))
	}
}

// updateCronTabs hands the CronTab group version to s.
func updateCronTabs(s *Service, description string) {
	resources, v2, v3 := cronTabs(description)
	s.UpdateGroupVersion(stableV1, resources, v2, v3)
}

// sameOthers checks that the index entries other than key did not change.
func sameOthers(t *testing.T, before, after v3Index, key string) {
	t.Helper()
	for k, e := range before.Paths {
		if k != key && after.Paths[k] != e {
			t.Errorf("index entry %s changed: %s -> %s", k, e.ServerRelativeURL, after.Paths[k].ServerRelativeURL)
		}
	}
	for k := range after.Paths {
		if _, ok := before.Paths[k]; !ok && k != key {
			t.Errorf("index gained %s", k)
		}
	}
}

func v3Doc(t *testing.T, h http.Handler, target string) *spec3.OpenAPI {
	t.Helper()
	rec := get(t, h, http.MethodGet, target, nil)
	if rec.Code != 200 {
		t.Fatalf("%s: status %d", target, rec.Code)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return &doc
}

func v2Doc(t *testing.T, h http.Handler) *spec.Swagger {
	t.Helper()
	rec := get(t, h, http.MethodGet, "/openapi/v2", nil)
	if rec.Code != 200 {
		t.Fatalf("v2: status %d", rec.Code)
	}
	var doc spec.Swagger
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("v2: %v", err)
	}
	return &doc
}

// TestConcurrentUpdates serves while group versions come and go; run
// with -race. Every answer must be one of the documents that existed.
func TestConcurrentUpdates(t *testing.T) {
	s := newSmallService(t)
	h := serve(s)
	const readers, rounds = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, readers*rounds*3)
	for range readers {
		wg.Go(func() {
			for range rounds {
				idx := httpIndex(h, errs)
				for _, target := range []string{idx["apis/apps/v1"], "/openapi/v3/" + keyOf(stableV1), "/openapi/v2"} {
					if target == "" {
						continue
					}
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
					// 404: the custom group version was just removed.
					if rec.Code != 200 && rec.Code != http.StatusNotFound {
						errs <- fmt.Errorf("%s: status %d", target, rec.Code)
					}
				}
			}
		})
	}
	for i := range rounds {
		updateCronTabs(s, fmt.Sprint(i))
		if i%3 == 0 {
			s.RemoveGroupVersion(stableV1)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func httpIndex(h http.Handler, errs chan<- error) map[string]string {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi/v3", nil))
	var idx v3Index
	if err := json.Unmarshal(rec.Body.Bytes(), &idx); err != nil {
		errs <- fmt.Errorf("index: %v", err)
		return nil
	}
	out := map[string]string{}
	for k, e := range idx.Paths {
		out[k] = e.ServerRelativeURL
	}
	return out
}
