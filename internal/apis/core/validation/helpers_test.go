package validation

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// describe renders errors as "path: type: detail", sorted, so tests pin
// field paths and messages but not the order of map iteration.
func describe(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s: %s: %s", e.Field, e.Type, e.Detail))
	}
	slices.Sort(out)
	return out
}

func checkErrors(t *testing.T, name string, got field.ErrorList, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, describe(got)); diff != "" {
		t.Errorf("%s: errors (-want +got):\n%s", name, diff)
	}
}
