package cel

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

var errNotAField = errors.New("does not refer to a valid field")

// validFieldPath parses a rule's fieldPath (.a.b, .a['b.c'], a map key in
// brackets) against s and returns it as a field path, as upstream.
func validFieldPath(jsonPath string, s *schema.Structural) (*field.Path, error) {
	var p *field.Path
	step := func(name string) error {
		switch {
		case s.Properties != nil:
			sub, ok := s.Properties[name]
			if !ok {
				return errNotAField
			}
			p, s = p.Child(name), sub
		case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
			p, s = p.Key(name), s.AdditionalProperties.Structural
		default:
			return errNotAField
		}
		return nil
	}
	rest := jsonPath
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[]")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, errors.New("unexpected end of JSON path")
			}
			if err := step(rest[:end]); err != nil {
				return nil, err
			}
			rest = rest[end:]
		case '[':
			name, n, err := quoted(rest[1:])
			if err != nil {
				return nil, err
			}
			rest = rest[1+n:]
			if !strings.HasPrefix(rest, "]") {
				return nil, errors.New("unexpected end of JSON path")
			}
			rest = rest[1:]
			if err := step(name); err != nil {
				return nil, err
			}
		default:
			tok := rest
			if i := strings.IndexAny(rest, ".[]"); i > 0 {
				tok = rest[:i]
			} else if i == 0 {
				tok = rest[:1]
			}
			return nil, fmt.Errorf("expected [ or . but got: %s", tok)
		}
	}
	return p, nil
}

// quoted reads a single-quoted string at the start of s, returning its
// unescaped value and how many bytes it took.
func quoted(s string) (string, int, error) {
	if !strings.HasPrefix(s, "'") {
		return "", 0, fmt.Errorf("expected single quoted string but got %s", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, errors.New("unexpected end of JSON path")
			}
			i++
			r, ok := map[byte]string{'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v", '\'': "'", '\\': "\\"}[s[i]]
			if !ok {
				return "", 0, fmt.Errorf("invalid string literal: invalid escape char \\%c", s[i])
			}
			b.WriteString(r)
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unexpected end of JSON path")
}
