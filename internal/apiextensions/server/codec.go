package server

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
)

// crdCodecs is the NegotiatedSerializer of one CRD's endpoints: custom
// resources are unstructured and change version through the CRD's
// converter; everything else (Status, WatchEvent, options, Scale) is typed
// and goes through the CRD's own scheme. JSON and YAML only: custom
// resources have no protobuf, as upstream.
type crdCodecs struct {
	base  serializer.CodecFactory
	types []runtime.SerializerInfo
	conv  *crdConverter
	typer crdTyper
	// schemas prune request bodies by version, as upstream does while
	// decoding (not in the strategy), so unknown fields can be reported.
	schemas map[string]VersionSchema
}

func newCRDCodecs(scheme *runtime.Scheme, conv *crdConverter, schemas map[string]VersionSchema) *crdCodecs {
	base := responsewriters.NewCodecFactory(scheme)
	var types []runtime.SerializerInfo
	for _, info := range base.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeJSON || info.MediaType == runtime.ContentTypeYAML {
			types = append(types, info)
		}
	}
	return &crdCodecs{base: base, types: types, conv: conv, typer: crdTyper{scheme: scheme}, schemas: schemas}
}

func (c *crdCodecs) SupportedMediaTypes() []runtime.SerializerInfo { return c.types }

func (c *crdCodecs) EncoderForVersion(e runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	return versioning.NewCodec(e, nil, c.conv, c.conv.scheme, c.typer, nil, gv, nil, "crd")
}

func (c *crdCodecs) DecoderToVersion(d runtime.Decoder, gv runtime.GroupVersioner) runtime.Decoder {
	strict := false
	if s, ok := d.(*json.Serializer); ok {
		strict = s.IsStrict()
	}
	pd := pruningDecoder{delegate: d, codecs: c, reportUnknown: strict}
	return versioning.NewCodec(nil, pd, c.conv, c.conv.scheme, c.typer, nil, nil, gv, "crd")
}

// pruningDecoder drops the fields a custom resource's schema does not know
// while decoding a request body; a strict decoder (fieldValidation Strict
// or Warn) reports them as strict decoding errors, after the decoder's own
// (duplicate fields), which the handlers fail or warn on.
type pruningDecoder struct {
	delegate      runtime.Decoder
	codecs        *crdCodecs
	reportUnknown bool
}

func (d pruningDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	var strictErrs []error
	obj, gvk, err := d.delegate.Decode(data, defaults, into)
	if err != nil {
		strictErr, ok := runtime.AsStrictDecodingError(err)
		if !ok || obj == nil {
			return obj, gvk, err
		}
		strictErrs = strictErr.Errors()
	}
	if u, ok := obj.(*unstructured.Unstructured); ok && d.codecs.conv.isCustomResource(u) {
		if vs, ok := d.codecs.schemas[u.GroupVersionKind().Version]; ok {
			for _, path := range vs.Prune(u.Object) {
				strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", path))
			}
		}
	}
	if d.reportUnknown && len(strictErrs) > 0 {
		return obj, gvk, runtime.NewStrictDecodingError(strictErrs)
	}
	return obj, gvk, nil
}

// crdTyper types unstructured objects by their apiVersion and kind, and
// the rest by the scheme.
type crdTyper struct{ scheme *runtime.Scheme }

func (t crdTyper) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		gvk := u.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" {
			return nil, false, runtime.NewMissingKindErr("object has no kind")
		}
		if gvk.Version == "" {
			return nil, false, runtime.NewMissingVersionErr("object has no apiVersion")
		}
		return []schema.GroupVersionKind{gvk}, false, nil
	}
	return t.scheme.ObjectKinds(obj)
}

func (t crdTyper) Recognizes(gvk schema.GroupVersionKind) bool { return t.scheme.Recognizes(gvk) }
