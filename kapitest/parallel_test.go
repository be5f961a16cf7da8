package kapitest

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"
)

// TestParallelServers runs 20 servers at once in one test binary, each
// serving its own CRUD, and checks that stopping them left no goroutine
// behind.
func TestParallelServers(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Run("servers", func(t *testing.T) {
		for i := range 20 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				crud(t, Start(t))
			})
		}
	})
	// The group returns once every subtest and its cleanup (Stop) ended.
	goleak.VerifyNone(t, append(leakIgnores(), before)...)
}
