package memory

import (
	"os"
	"testing"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

func TestMain(m *testing.M) { os.Exit(storagetest.Run(m)) }

func newBackend(t *testing.T) storage.Backend {
	b := New()
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestConformance(t *testing.T) { storagetest.RunTests(t, newBackend) }

func BenchmarkCreate(b *testing.B) { storagetest.BenchmarkCreate(b, benchBackend(b)) }
func BenchmarkGet(b *testing.B)    { storagetest.BenchmarkGet(b, benchBackend(b)) }
func BenchmarkList(b *testing.B)   { storagetest.BenchmarkList(b, benchBackend(b)) }

func benchBackend(b *testing.B) *Backend {
	be := New()
	b.Cleanup(func() { _ = be.Close() })
	return be
}
