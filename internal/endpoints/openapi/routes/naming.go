package routes

import (
	"strings"
	"unicode"
)

// validID keeps the letters, underscores and (after the first rune)
// digits of s, starting a capital after every dropped rune, and
// capitalises the first one when first is set: "rbac.authorization"
// becomes "RbacAuthorization" (or "rbacAuthorization"), as
// kube-apiserver makes operation ids and tags.
func validID(s string, first bool) string {
	var sb strings.Builder
	sb.Grow(len(s))
	upper := first
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// title capitalises a one-word name ("status" → "Status",
// "portforward" → "Portforward") as upstream titles subresources and
// connect methods in operation ids.
func title(s string) string {
	if s == "" {
		return ""
	}
	lower := strings.ToLower(s)
	return strings.ToUpper(lower[:1]) + lower[1:]
}

// article is the article of a kind in descriptions, padded with
// spaces: " a ", " an ", or a single space for plurals (a kind ending in
// one "s").
func article(kind string) string {
	if strings.HasSuffix(kind, "s") && !strings.HasSuffix(kind, "ss") {
		return " "
	}
	if kind != "" && strings.ContainsRune("aeiouAEIOU", rune(kind[0])) {
		return " an "
	}
	return " a "
}

// describer words the descriptions of one resource's operations: of
// the kind, or of a subresource of the kind.
type describer struct {
	kind, sub string
}

func (d describer) read() string {
	if d.sub != "" {
		return "read " + d.sub + " of the specified " + d.kind
	}
	return "read the specified " + d.kind
}

func (d describer) list(watch bool) string {
	verb := "list"
	if watch {
		verb = "list or watch"
	}
	if d.sub != "" {
		return verb + " " + d.sub + " of objects of kind " + d.kind
	}
	return verb + " objects of kind " + d.kind
}

func (d describer) replace() string {
	if d.sub != "" {
		return "replace " + d.sub + " of the specified " + d.kind
	}
	return "replace the specified " + d.kind
}

func (d describer) patch() string {
	if d.sub != "" {
		return "partially update " + d.sub + " of the specified " + d.kind
	}
	return "partially update the specified " + d.kind
}

func (d describer) create() string {
	if d.sub != "" {
		return "create " + d.sub + " of" + article(d.kind) + d.kind
	}
	return "create" + article(d.kind) + d.kind
}

func (d describer) delete() string {
	if d.sub != "" {
		return "delete " + d.sub + " of" + article(d.kind) + d.kind
	}
	return "delete" + article(d.kind) + d.kind
}

func (d describer) deleteCollection() string {
	if d.sub != "" {
		return "delete collection of " + d.sub + " of a " + d.kind
	}
	return "delete collection of " + d.kind
}

func (d describer) watch() string {
	s := "watch changes to an object of kind " + d.kind
	if d.sub != "" {
		s = "watch changes to " + d.sub + " of an object of kind " + d.kind
	}
	return s + ". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter."
}

func (d describer) watchList() string {
	s := "watch individual changes to a list of " + d.kind
	if d.sub != "" {
		s = "watch individual changes to a list of " + d.sub + " of " + d.kind
	}
	return s + ". deprecated: use the 'watch' parameter with a list operation instead."
}

func (d describer) connect(method string) string {
	if d.sub != "" {
		return "connect " + method + " requests to " + d.sub + " of " + d.kind
	}
	return "connect " + method + " requests to " + d.kind
}
