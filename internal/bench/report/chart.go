package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

// Chart is every phase of every series, in drawing order.
type Chart struct {
	// Series are the sorted labels: "server/backend", plus the date (or
	// file name) when several inputs measured the same server/backend.
	Series []string
	// Phases are in workload order: create, get, update, delete, list,
	// watch, mixed, startup, then any others by name.
	Phases []string
	cells  map[cell]result.Phase
}

type cell struct{ phase, series string }

// Get returns the series' measurement of the phase.
func (c *Chart) Get(phase, series string) (result.Phase, bool) {
	p, ok := c.cells[cell{phase, series}]
	return p, ok
}

// Build groups the inputs' phases by series. When one input holds the
// same phase of a series twice, the later one wins.
func Build(inputs []Input) *Chart {
	labels := seriesLabels(inputs)
	c := &Chart{cells: map[cell]result.Phase{}}
	for i, in := range inputs {
		for _, p := range in.Phases {
			s := labels[i][baseLabel(p)]
			if !slices.Contains(c.Series, s) {
				c.Series = append(c.Series, s)
			}
			if !slices.Contains(c.Phases, p.Phase) {
				c.Phases = append(c.Phases, p.Phase)
			}
			c.cells[cell{p.Phase, s}] = p
		}
	}
	slices.Sort(c.Series)
	slices.SortFunc(c.Phases, comparePhases)
	return c
}

// baseLabel names a phase's series without telling runs apart.
func baseLabel(p result.Phase) string {
	server := p.Server
	if server == "" {
		server = "server"
	}
	if p.Backend == "" {
		return server
	}
	return server + "/" + p.Backend
}

// seriesLabels maps, per input, each base label to its series label. A
// base label in several inputs gets the input's date, or its file name
// when the dates (to the day) do not tell them apart.
func seriesLabels(inputs []Input) []map[string]string {
	owners := map[string][]int{} // base label → inputs that have it
	for i, in := range inputs {
		for _, p := range in.Phases {
			b := baseLabel(p)
			if !slices.Contains(owners[b], i) {
				owners[b] = append(owners[b], i)
			}
		}
	}
	out := make([]map[string]string, len(inputs))
	for i := range out {
		out[i] = map[string]string{}
	}
	for b, idx := range owners {
		days := map[string]bool{}
		for _, i := range idx {
			if d := day(inputs[i]); d != "" {
				days[d] = true
			}
		}
		for _, i := range idx {
			switch {
			case len(idx) == 1:
				out[i][b] = b
			case len(days) == len(idx):
				out[i][b] = fmt.Sprintf("%s (%s)", b, day(inputs[i]))
			default:
				out[i][b] = fmt.Sprintf("%s (%s)", b, inputs[i].Name)
			}
		}
	}
	return out
}

func day(in Input) string {
	if in.Date.IsZero() {
		return ""
	}
	return in.Date.UTC().Format("2006-01-02")
}

// phaseOrder is the order the workloads run in; "mixed" stands for every
// "mixed/..." phase.
var phaseOrder = []string{"create", "get", "update", "delete", "list/json", "list/protobuf",
	"list/rv0", "list/paged", "watch", "mixed", "startup"}

func phaseRank(p string) int {
	if strings.HasPrefix(p, "mixed/") {
		p = "mixed"
	}
	if i := slices.Index(phaseOrder, p); i >= 0 {
		return i
	}
	return len(phaseOrder)
}

func comparePhases(a, b string) int {
	if ra, rb := phaseRank(a), phaseRank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// isDuration says the phase is measured in seconds (lower is better)
// rather than in operations per second.
func isDuration(phase string) bool {
	return strings.HasPrefix(phase, "list") || phase == "startup"
}
