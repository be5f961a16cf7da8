package handlers

import (
	"bytes"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/internal/pbdecode"
)

// typeMetaFactory finds the apiVersion and kind of a JSON body in one
// quick pass. apimachinery's default decodes the whole body with
// encoding/json for them (validating it, then decoding it while skipping
// every other member): a third of decoding a request body. The quick pass
// gives what the default gives for a valid object whose apiVersion and
// kind members are plain ASCII strings; anything else (invalid JSON,
// escapes, other types, non-ASCII keys) goes to the default, so errors
// keep their exact text.
type typeMetaFactory struct{}

var _ json.MetaFactory = typeMetaFactory{}

func (typeMetaFactory) Interpret(data []byte) (*schema.GroupVersionKind, error) {
	apiVersion, kind, ok := scanTypeMeta(data)
	if !ok {
		return json.DefaultMetaFactory.Interpret(data)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return &schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}, nil
}

// bodySerializers are the decoders of a scheme's request bodies: JSON
// with typeMetaFactory, and protobuf without the envelope's copy of the
// object (internal/pbdecode).
type bodySerializers struct{ plain, strict, protobuf runtime.Serializer }

var bodySerializersByScheme sync.Map // *runtime.Scheme -> *bodySerializers

// fastBodyDecoder returns the serializer to decode a body with in place of
// chosen, the negotiated one: the faster equivalent of the scheme's plain
// or strict JSON serializer or of its protobuf serializer, else chosen.
func (s *RequestScope) fastBodyDecoder(chosen runtime.Serializer) runtime.Serializer {
	scheme, ok := s.Creater.(*runtime.Scheme)
	if !ok || s.Typer != runtime.ObjectTyper(scheme) {
		return chosen
	}
	switch chosen.(type) {
	case *json.Serializer, *protobuf.Serializer:
	default:
		return chosen
	}
	v, ok := bodySerializersByScheme.Load(scheme)
	if !ok {
		v, _ = bodySerializersByScheme.LoadOrStore(scheme, &bodySerializers{
			plain:    json.NewSerializerWithOptions(typeMetaFactory{}, scheme, scheme, json.SerializerOptions{}),
			strict:   json.NewSerializerWithOptions(typeMetaFactory{}, scheme, scheme, json.SerializerOptions{Strict: true}),
			protobuf: pbdecode.NewSerializer(scheme, scheme),
		})
	}
	b := v.(*bodySerializers)
	for _, fast := range []runtime.Serializer{b.plain, b.strict, b.protobuf} {
		if chosen.Identifier() == fast.Identifier() {
			return fast
		}
	}
	return chosen
}

// maxScanDepth bounds the nesting the quick pass follows; deeper bodies
// go to encoding/json, which has its own limit.
const maxScanDepth = 1000

// scanTypeMeta returns the apiVersion and kind members of the JSON object
// data, as encoding/json would decode them into TypeMeta (matching names
// case-insensitively, the last match winning), when data is valid JSON,
// its value is an object, and the members it matched are ASCII strings
// without escapes. ok is false otherwise.
func scanTypeMeta(data []byte) (apiVersion, kind string, ok bool) {
	sc := scanner{data: data}
	sc.space()
	if !sc.next('{') {
		return "", "", false
	}
	sc.space()
	if sc.next('}') {
		sc.space()
		return "", "", sc.end()
	}
	for {
		key, plain := sc.str()
		if !plain {
			return "", "", false
		}
		sc.space()
		if !sc.next(':') {
			return "", "", false
		}
		sc.space()
		switch {
		case bytes.EqualFold(key, []byte("apiVersion")):
			v, plain := sc.str()
			if !plain {
				return "", "", false
			}
			apiVersion = string(v)
		case bytes.EqualFold(key, []byte("kind")):
			v, plain := sc.str()
			if !plain {
				return "", "", false
			}
			kind = string(v)
		default:
			if !sc.value(1) {
				return "", "", false
			}
		}
		sc.space()
		if sc.next('}') {
			sc.space()
			return apiVersion, kind, sc.end()
		}
		if !sc.next(',') {
			return "", "", false
		}
		sc.space()
	}
}

// scanner checks JSON text as encoding/json's validator does.
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) end() bool { return s.i == len(s.data) }

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) next(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string of printable ASCII without escapes and returns its
// contents; plain is false for anything else.
func (s *scanner) str() (contents []byte, plain bool) {
	if !s.next('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return s.data[start : s.i-1], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// value checks one JSON value of any kind.
func (s *scanner) value(depth int) bool {
	if s.i >= len(s.data) || depth > maxScanDepth {
		return false
	}
	switch c := s.data[s.i]; {
	case c == '"':
		return s.anyString()
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

func (s *scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.data[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// anyString checks a string with any escapes and bytes encoding/json
// accepts (it checks no UTF-8).
func (s *scanner) anyString() bool {
	s.i++ // the opening quote
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i+1 >= len(s.data) {
				return false
			}
			switch s.data[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.data) {
					return false
				}
				for _, h := range s.data[s.i+2 : s.i+6] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.data) && '0' <= s.data[s.i] && s.data[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	s.next('-')
	if s.next('0') {
		// no more integer digits after a leading zero
	} else if s.i < len(s.data) && '1' <= s.data[s.i] && s.data[s.i] <= '9' {
		s.digits()
	} else {
		return false
	}
	if s.next('.') && s.digits() == 0 {
		return false
	}
	if s.next('e') || s.next('E') {
		if !s.next('+') {
			s.next('-')
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) object(depth int) bool {
	s.i++ // '{'
	s.space()
	if s.next('}') {
		return true
	}
	for {
		if s.i >= len(s.data) || s.data[s.i] != '"' || !s.anyString() {
			return false
		}
		s.space()
		if !s.next(':') {
			return false
		}
		s.space()
		if !s.value(depth + 1) {
			return false
		}
		s.space()
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
		s.space()
	}
}

func (s *scanner) array(depth int) bool {
	s.i++ // '['
	s.space()
	if s.next(']') {
		return true
	}
	for {
		if !s.value(depth + 1) {
			return false
		}
		s.space()
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
		s.space()
	}
}
