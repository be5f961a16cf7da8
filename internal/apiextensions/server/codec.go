package server

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"
)

// crdCodecs is the NegotiatedSerializer of one CRD's endpoints: custom
// resources are unstructured and change version by rewriting apiVersion;
// everything else (Status, WatchEvent, options, Scale) is typed and goes
// through the CRD's own scheme. JSON and YAML only: custom resources
// have no protobuf, as upstream.
type crdCodecs struct {
	base  serializer.CodecFactory
	types []runtime.SerializerInfo
	conv  *crdConverter
	typer crdTyper
}

func newCRDCodecs(scheme *runtime.Scheme, conv *crdConverter) *crdCodecs {
	base := serializer.NewCodecFactory(scheme)
	var types []runtime.SerializerInfo
	for _, info := range base.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeJSON || info.MediaType == runtime.ContentTypeYAML {
			types = append(types, info)
		}
	}
	return &crdCodecs{base: base, types: types, conv: conv, typer: crdTyper{scheme: scheme}}
}

func (c *crdCodecs) SupportedMediaTypes() []runtime.SerializerInfo { return c.types }

func (c *crdCodecs) EncoderForVersion(e runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	return versioning.NewCodec(e, nil, c.conv, c.conv.scheme, c.typer, nil, gv, nil, "crd")
}

func (c *crdCodecs) DecoderToVersion(d runtime.Decoder, gv runtime.GroupVersioner) runtime.Decoder {
	return versioning.NewCodec(nil, d, c.conv, c.conv.scheme, c.typer, nil, nil, gv, "crd")
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

// crdConverter converts a CRD's objects between its served versions. With
// strategy None that is rewriting apiVersion; webhook conversion is not
// served yet and fails with a clear error.
type crdConverter struct {
	scheme   *runtime.Scheme
	group    string
	versions []string // served versions plus the storage version
	webhook  bool
	// fieldLabels are the labels field selectors accept.
	fieldLabels map[string]bool
}

func (c *crdConverter) Convert(in, out, context any) error {
	uin, okIn := in.(runtime.Unstructured)
	uout, okOut := out.(runtime.Unstructured)
	if okIn && okOut {
		uout.SetUnstructuredContent(uin.UnstructuredContent())
		return nil
	}
	return c.scheme.Convert(in, out, context)
}

func (c *crdConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	switch obj := in.(type) {
	case *unstructured.UnstructuredList:
		list := obj.DeepCopy()
		if err := c.convertInPlace(list, target); err != nil {
			return nil, err
		}
		for i := range list.Items {
			if err := c.convertInPlace(&list.Items[i], target); err != nil {
				return nil, err
			}
		}
		return list, nil
	case *unstructured.Unstructured:
		u := obj.DeepCopy()
		if err := c.convertInPlace(u, target); err != nil {
			return nil, err
		}
		return u, nil
	}
	return c.scheme.ConvertToVersion(in, target)
}

func (c *crdConverter) UnsafeConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	return c.ConvertToVersion(in, target)
}

// convertInPlace sets u's apiVersion to the version target picks.
func (c *crdConverter) convertInPlace(u runtime.Unstructured, target runtime.GroupVersioner) error {
	from := u.GetObjectKind().GroupVersionKind()
	to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{from})
	if !ok {
		return fmt.Errorf("%v is unstructured and is not suitable for converting to %q", from, target)
	}
	if to.Version == from.Version {
		return nil
	}
	if to.Group != c.group || !slices.Contains(c.versions, to.Version) {
		return fmt.Errorf("request to convert CR to an invalid group/version: %s", to.GroupVersion())
	}
	if c.webhook {
		return errWebhookConversion
	}
	u.GetObjectKind().SetGroupVersionKind(to)
	return nil
}

var errWebhookConversion = fmt.Errorf("conversion webhook is not supported yet by this server")

// ConvertFieldLabel accepts metadata.name, metadata.namespace and the
// version's selectableFields, as upstream.
func (c *crdConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	if label == "metadata.name" || label == "metadata.namespace" || c.fieldLabels[label] {
		return label, value, nil
	}
	return "", "", fmt.Errorf("field label not supported: %s", label)
}

type schemaGVK = schema.GroupVersionKind
