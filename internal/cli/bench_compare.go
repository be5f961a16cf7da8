package cli

import (
	"fmt"
	"io"

	"github.com/kapi-dev/kapi/internal/bench/report"
)

// runCompare is `kapi bench --compare A B`: it prints each figure of the
// phases of both runs and the ratio B/A.
func runCompare(w io.Writer, files []string) error {
	if len(files) != 2 {
		return fmt.Errorf("kapi bench --compare: want two results files A and B, got %d arguments", len(files))
	}
	in, err := report.Load(files...)
	if err != nil {
		return fmt.Errorf("kapi bench --compare: %w", err)
	}
	return report.WriteComparison(w, in[0], in[1])
}
