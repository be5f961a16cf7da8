package negotiation

import (
	"sort"
	"strconv"
	"strings"
)

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	Type, SubType string
	Q             float64
	Params        map[string]string
}

// parseAccept splits an Accept header into clauses, most preferred first:
// by quality, then concrete types before wildcards. Malformed clauses are
// dropped rather than failing the request, as browsers and old clients send
// odd headers.
func parseAccept(header string) []acceptClause {
	var clauses []acceptClause
	for part := range strings.SplitSeq(header, ",") {
		c, ok := parseClause(part)
		if ok {
			clauses = append(clauses, c)
		}
	}
	sort.SliceStable(clauses, func(i, j int) bool {
		a, b := clauses[i], clauses[j]
		if a.Q != b.Q {
			return a.Q > b.Q
		}
		if a.Type != "*" && b.Type == "*" {
			return true
		}
		return a.SubType != "*" && b.SubType == "*"
	})
	return clauses
}

func parseClause(part string) (acceptClause, bool) {
	c := acceptClause{Q: 1}
	mediaRange, params, _ := strings.Cut(part, ";")
	typ, sub, hasSlash := strings.Cut(strings.TrimSpace(mediaRange), "/")
	typ, sub = strings.TrimSpace(typ), strings.TrimSpace(sub)
	switch {
	case !hasSlash && typ == "*":
		sub = "*"
	case !hasSlash || typ == "" || sub == "" || strings.Contains(sub, "/"):
		return c, false
	}
	c.Type, c.SubType = typ, sub
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.Contains(v, "=") {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "q" {
			q, err := strconv.ParseFloat(v, 32)
			if err == nil {
				c.Q = q
			}
			continue
		}
		if c.Params == nil {
			c.Params = map[string]string{}
		}
		c.Params[k] = v
	}
	return c, true
}
