// Package pbdecode decodes Kubernetes protobuf bodies (the "k8s\x00"
// prefix, then a runtime.Unknown envelope around the object's own
// message) without copying the object's bytes out of the envelope first.
//
// apimachinery's protobuf serializer unmarshals the envelope into a
// runtime.Unknown, whose generated code copies the payload, and then
// unmarshals the object from that copy. Every stored value the watch
// caches read and every protobuf request body paid for a second copy of
// the object that lived for one call. The generated Unmarshal methods copy
// every string and byte slice they keep, so the object can be decoded from
// the caller's buffer directly.
//
// Everything else is the wrapped serializer's: encoding, identifiers,
// recognition, and every outcome of Decode (the same objects, kinds and
// errors: a body this package cannot read is handed to it whole).
package pbdecode

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// prefix starts every Kubernetes protobuf body.
var prefix = []byte{0x6b, 0x38, 0x73, 0x00}

// Serializer is apimachinery's protobuf serializer with a Decode that does
// not copy the payload.
type Serializer struct {
	*protobuf.Serializer
	creater runtime.ObjectCreater
	typer   runtime.ObjectTyper
}

var _ runtime.Serializer = (*Serializer)(nil)

// NewSerializer is protobuf.NewSerializer(creater, typer) decoding without
// the copy.
func NewSerializer(creater runtime.ObjectCreater, typer runtime.ObjectTyper) *Serializer {
	return &Serializer{Serializer: protobuf.NewSerializer(creater, typer), creater: creater, typer: typer}
}

// unmarshaler is what generated protobuf types implement.
type unmarshaler interface {
	Reset()
	Unmarshal([]byte) error
}

// Decode decodes data as the wrapped serializer does. Into a
// *runtime.Unknown, which keeps the payload, it leaves the work to the
// wrapped serializer, as it does for anything that is not a well-formed
// envelope (so that the error is the same).
func (s *Serializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if _, ok := into.(*runtime.Unknown); ok || len(data) <= len(prefix) || !bytes.Equal(data[:len(prefix)], prefix) {
		return s.Serializer.Decode(data, defaults, into)
	}
	apiVersion, kind, raw, ok := envelope(data[len(prefix):])
	if !ok {
		return s.Serializer.Decode(data, defaults, into)
	}
	actual := schema.FromAPIVersionAndKind(apiVersion, kind)
	copyKindDefaults(&actual, defaults)

	if into != nil {
		types, _, err := s.typer.ObjectKinds(into)
		switch {
		case runtime.IsNotRegisteredError(err):
			ok, err := unmarshal(into, raw)
			if !ok {
				return s.Serializer.Decode(data, defaults, into)
			}
			if err != nil {
				return nil, &actual, err
			}
			return into, &actual, nil
		case err != nil:
			return nil, &actual, err
		default:
			copyKindDefaults(&actual, &types[0])
			if actual.Version == "" && actual.Group == "" {
				actual.Group = types[0].Group
			}
		}
	}
	if actual.Kind == "" || actual.Version == "" {
		// The wrapped serializer words these errors.
		return s.Serializer.Decode(data, defaults, into)
	}
	obj, err := runtime.UseOrCreateObject(s.typer, s.creater, actual, into)
	if err != nil {
		return nil, &actual, err
	}
	ok, err = unmarshal(obj, raw)
	if !ok {
		return s.Serializer.Decode(data, defaults, into)
	}
	if err != nil {
		return nil, &actual, err
	}
	obj.GetObjectKind().SetGroupVersionKind(actual)
	return obj, &actual, nil
}

// unmarshal resets obj and decodes raw into it, as the wrapped serializer
// does with a top-level object; ok is false when obj is not a generated
// protobuf type (the wrapped serializer then words the error).
func unmarshal(obj runtime.Object, raw []byte) (ok bool, err error) {
	u, ok := obj.(unmarshaler)
	if !ok {
		return false, nil
	}
	u.Reset()
	return true, u.Unmarshal(raw)
}

// copyKindDefaults fills what dst lacks from src, as the wrapped
// serializer does: the kind, and the group and version together.
func copyKindDefaults(dst, src *schema.GroupVersionKind) {
	if src == nil {
		return
	}
	if dst.Kind == "" {
		dst.Kind = src.Kind
	}
	if dst.Version == "" && src.Version != "" {
		dst.Group = src.Group
		dst.Version = src.Version
	}
}

// Field numbers of runtime.Unknown and of its TypeMeta.
const (
	unknownTypeMeta        protowire.Number = 1
	unknownRaw             protowire.Number = 2
	unknownContentEncoding protowire.Number = 3
	unknownContentType     protowire.Number = 4
	typeMetaVersion        protowire.Number = 1
	typeMetaKind           protowire.Number = 2
)

// envelope reads a runtime.Unknown message: the type it names and its
// payload, which is a slice of b. ok is false when b is not a well-formed
// message, or one this reader does not expect (a field of the wrong wire
// type).
func envelope(b []byte) (apiVersion, kind string, raw []byte, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", "", nil, false
		}
		b = b[n:]
		switch {
		case num == unknownTypeMeta && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return "", "", nil, false
			}
			if apiVersion, kind, ok = typeMeta(v, apiVersion, kind); !ok {
				return "", "", nil, false
			}
			b = b[n:]
		case num == unknownRaw && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return "", "", nil, false
			}
			raw = v
			b = b[n:]
		case num <= unknownContentType && typ != protowire.BytesType:
			return "", "", nil, false
		default:
			// contentEncoding, contentType and fields of later versions:
			// the wrapped serializer does not use them either.
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return "", "", nil, false
			}
			b = b[n:]
		}
	}
	if raw == nil {
		raw = []byte{}
	}
	return apiVersion, kind, raw, true
}

// typeMeta reads a TypeMeta message over the values read so far (a field
// that appears twice keeps its last value, as protobuf merges messages).
func typeMeta(b []byte, apiVersion, kind string) (string, string, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", "", false
		}
		b = b[n:]
		switch {
		case (num == typeMetaVersion || num == typeMetaKind) && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return "", "", false
			}
			if num == typeMetaVersion {
				apiVersion = string(v)
			} else {
				kind = string(v)
			}
			b = b[n:]
		case num == typeMetaVersion || num == typeMetaKind:
			return "", "", false
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return "", "", false
			}
			b = b[n:]
		}
	}
	return apiVersion, kind, true
}
