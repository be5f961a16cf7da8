package report

import (
	"math"
	"strconv"
	"strings"
)

// num formats a value with about three significant digits, and thousands
// separators for large ones, so bar labels stay short.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1000:
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// tick formats an axis tick, a round number, with no trailing zeros.
func tick(v float64) string {
	if math.Abs(v) >= 1000 {
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// group puts commas between thousands of an integer string.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// niceMax rounds v up to 1, 2, 2.5 or 5 times a power of ten, so axis
// ticks fall on round numbers.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	exp := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if m := f * exp; m >= v*(1-1e-12) {
			return m
		}
	}
	return 10 * exp
}
