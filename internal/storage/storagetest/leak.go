package storagetest

import (
	"testing"

	"github.com/kapi-dev/kapi/internal/leakcheck"
)

// leakMarker identifies goroutines running kapi storage code.
const leakMarker = "github.com/kapi-dev/kapi/internal/storage"

// Run runs a package's tests and then fails (returns a non-zero code) if any
// goroutine is still running kapi storage code: every watch and backend must
// stop what it started. Call it from TestMain and pass the result to
// os.Exit after any cleanup.
func Run(m *testing.M) int {
	return leakcheck.Main(m, leakMarker)
}
