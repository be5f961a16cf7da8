// Package report turns bench results into something to look at: one SVG
// of small multiples (a panel per phase and metric, a bar per series) and
// a markdown table. It reads results files (result.File) and the JSON
// lines of `kapi bench --output json`, and its output depends only on its
// input, so golden tests can hold it.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

// Input is the phases of one file.
type Input struct {
	// Name is the file's base name, used to tell runs apart when their
	// dates do not.
	Name string
	// Date is the results file's date, or the earliest phase start of a
	// JSON-lines file.
	Date   time.Time
	Phases []result.Phase
}

// Load reads each path as a results file or as JSON-lines phases.
func Load(paths ...string) ([]Input, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no result files given")
	}
	var out []Input
	for _, p := range paths {
		in, err := loadOne(p)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// loadOne tells the two formats apart by the first JSON object: a results
// file has "version" and "phases", a phase line has "phase".
func loadOne(path string) (Input, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Input{}, err
	}
	in := Input{Name: filepath.Base(path)}
	var probe struct {
		Version *int             `json:"version"`
		Phases  *json.RawMessage `json:"phases"`
		Phase   *string          `json:"phase"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&probe); err != nil {
		return Input{}, fmt.Errorf("%s: not a bench results file or --output json phases: %w", path, err)
	}
	switch {
	case probe.Version != nil || probe.Phases != nil:
		f, err := result.ReadFile(path)
		if err != nil {
			return Input{}, err
		}
		in.Date, in.Phases = f.Date, f.Phases
	case probe.Phase != nil:
		in.Phases, err = result.ReadPhases(bytes.NewReader(b))
		if err != nil {
			return Input{}, fmt.Errorf("%s: %w", path, err)
		}
		for _, p := range in.Phases {
			if !p.Start.IsZero() && (in.Date.IsZero() || p.Start.Before(in.Date)) {
				in.Date = p.Start
			}
		}
	default:
		return Input{}, fmt.Errorf("%s: neither a bench results file (no \"version\") nor --output json phases (no \"phase\")", path)
	}
	if len(in.Phases) == 0 {
		return Input{}, fmt.Errorf("%s: holds no phases", path)
	}
	for i, p := range in.Phases {
		if p.Phase == "" {
			return Input{}, fmt.Errorf("%s: phase %d has no \"phase\" name", path, i+1)
		}
	}
	return in, nil
}
