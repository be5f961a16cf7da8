package server

import (
	"context"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// tickingSource ticks on a channel the test owns and reports each List.
type tickingSource struct {
	*fakeSource
	ticks  chan struct{}
	listed chan struct{}
}

func (s *tickingSource) Watch(context.Context) (<-chan struct{}, error) { return s.ticks, nil }

func (s *tickingSource) List(ctx context.Context) ([]*apiextv1.CustomResourceDefinition, error) {
	defer func() { s.listed <- struct{}{} }()
	return s.fakeSource.List(ctx)
}

func TestRunFollowsSource(t *testing.T) {
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	src := &tickingSource{fakeSource: &fakeSource{crds: map[string]*apiextv1.CustomResourceDefinition{}},
		ticks: make(chan struct{}), listed: make(chan struct{})}
	h, err := New(Config{Source: src, RESTOptionsGetter: jsonOptions{backend}})
	if err != nil {
		t.Fatal(err)
	}
	if h.HasSynced() {
		t.Fatal("synced before Run")
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); h.Run(ctx) }()
	<-src.listed
	src.set(widgetCRD(apiextv1.NamespaceScoped))
	src.ticks <- struct{}{}
	<-src.listed
	cancel()
	<-done
	if !h.HasSynced() {
		t.Error("not synced after Run listed")
	}
	if h.Storage("example.com", "widgets") == nil {
		t.Error("CRD added after start is not served after a tick")
	}
}

func TestNewRequiresSourceAndStorage(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("New accepted an empty Config")
	}
}
