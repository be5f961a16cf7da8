package validation

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronField is one field of a standard cron schedule: its bounds and the
// names it accepts (case-insensitive) in place of numbers.
type cronField struct {
	min, max uint
	names    map[string]uint
}

// The five fields of the standard syntax, in order, with the bounds the
// cron library the upstream controller uses (robfig/cron/v3) accepts.
var standardCronFields = []cronField{
	{min: 0, max: 59}, // minute
	{min: 0, max: 23}, // hour
	{min: 1, max: 31}, // day of month
	{min: 1, max: 12, names: map[string]uint{ // month
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	}},
	{min: 0, max: 6, names: map[string]uint{ // day of week
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
	}},
}

// cronDescriptors are the @-shorthands the standard parser accepts, besides
// "@every <duration>".
var cronDescriptors = map[string]bool{
	"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true,
	"@daily": true, "@midnight": true, "@hourly": true,
}

// ParseCronSchedule checks a schedule in the standard five-field cron
// syntax (minute hour day-of-month month day-of-week, with names, ranges,
// steps, lists, * and ?), a descriptor such as @hourly or @every 1h, and an
// optional TZ=/CRON_TZ= prefix. Its errors read as the cron library's that
// kube-apiserver uses, so validation messages match upstream's.
func ParseCronSchedule(spec string) error {
	if len(spec) == 0 {
		return fmt.Errorf("empty spec string")
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		i := strings.Index(spec, " ")
		if i < 0 {
			i = len(spec)
		}
		eq := strings.Index(spec, "=")
		if _, err := time.LoadLocation(spec[eq+1 : i]); err != nil {
			return fmt.Errorf("provided bad location %s: %v", spec[eq+1:i], err)
		}
		spec = strings.TrimSpace(spec[i:])
	}
	if strings.HasPrefix(spec, "@") {
		return parseCronDescriptor(spec)
	}
	fields := strings.Fields(spec)
	if len(fields) != len(standardCronFields) {
		return fmt.Errorf("expected exactly %d fields, found %d: %s", len(standardCronFields), len(fields), fields)
	}
	for i, f := range fields {
		for _, expr := range strings.Split(f, ",") {
			if err := parseCronRange(expr, standardCronFields[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func parseCronDescriptor(spec string) error {
	if cronDescriptors[spec] {
		return nil
	}
	const every = "@every "
	if strings.HasPrefix(spec, every) {
		if _, err := time.ParseDuration(spec[len(every):]); err != nil {
			return fmt.Errorf("failed to parse duration %s: %s", spec, err)
		}
		return nil
	}
	return fmt.Errorf("unrecognized descriptor: %s", spec)
}

// parseCronRange checks one element of a field's list: *, ?, N, N-M,
// each optionally followed by /step.
func parseCronRange(expr string, r cronField) error {
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	var start, end uint
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end = r.min, r.max
	} else {
		var err error
		if start, err = parseCronValue(lowAndHigh[0], r.names); err != nil {
			return err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = parseCronValue(lowAndHigh[1], r.names); err != nil {
				return err
			}
		default:
			return fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	step := uint(1)
	switch len(rangeAndStep) {
	case 1:
	case 2:
		var err error
		if step, err = parseCronInt(rangeAndStep[1]); err != nil {
			return err
		}
		// "N/step" means "N-max/step".
		if len(lowAndHigh) == 1 {
			end = r.max
		}
	default:
		return fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < r.min:
		return fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, r.min, expr)
	case end > r.max:
		return fmt.Errorf("end of range (%d) above maximum (%d): %s", end, r.max, expr)
	case start > end:
		return fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	return nil
}

func parseCronValue(expr string, names map[string]uint) (uint, error) {
	if v, ok := names[strings.ToLower(expr)]; ok {
		return v, nil
	}
	return parseCronInt(expr)
}

func parseCronInt(expr string) (uint, error) {
	n, err := strconv.Atoi(expr)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", expr, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, expr)
	}
	return uint(n), nil
}
