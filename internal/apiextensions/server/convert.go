package server

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ConverterFactory builds the converter of CRDs whose conversion strategy
// is Webhook; the integrator backs it with the conversion webhook client.
type ConverterFactory interface {
	NewConverter(crd *apiextv1.CustomResourceDefinition) (Converter, error)
}

// Converter converts custom resources between a CRD's versions.
type Converter interface {
	// Convert returns objs converted to gv, in order.
	Convert(ctx context.Context, objs []*unstructured.Unstructured, gv schema.GroupVersion) ([]*unstructured.Unstructured, error)
}

// errWebhookConversion answers for a Webhook CRD when no ConverterFactory
// is configured.
var errWebhookConversion = errors.New("conversion webhook is not supported by this server: no converter configured")

// crdConverter converts a CRD's objects between its served versions. With
// strategy None that is rewriting apiVersion; with Webhook it is the
// webhook's Converter, one call per object or per list.
type crdConverter struct {
	scheme   *runtime.Scheme
	group    string
	kind     string
	versions []string // served versions plus the storage version
	webhook  bool
	// converter converts Webhook CRDs; nil fails their conversions.
	converter Converter
	// fieldLabels are the labels field selectors accept.
	fieldLabels map[string]bool
}

// isCustomResource: u is of this CRD's group and kind (options and other
// objects pass through the codecs too).
func (c *crdConverter) isCustomResource(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == c.group && gvk.Kind == c.kind
}

func (c *crdConverter) Convert(in, out, context any) error {
	uin, okIn := in.(*unstructured.Unstructured)
	uout, okOut := out.(*unstructured.Unstructured)
	if okIn && okOut {
		uout.SetUnstructuredContent(uin.UnstructuredContent())
		return nil
	}
	return c.scheme.Convert(in, out, context)
}

// ConvertToVersion converts custom resources and lists of them; the
// encoders call it without a context, as upstream's converter is called.
func (c *crdConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	switch obj := in.(type) {
	case *unstructured.UnstructuredList:
		to, err := c.targetVersion(obj.GroupVersionKind(), target)
		if err != nil {
			return nil, err
		}
		list := obj.DeepCopy()
		items := make([]*unstructured.Unstructured, len(list.Items))
		for i := range list.Items {
			items[i] = &list.Items[i]
		}
		converted, err := c.convert(context.Background(), items, to)
		if err != nil {
			return nil, err
		}
		for i, u := range converted {
			list.Items[i] = *u
		}
		list.SetAPIVersion(schema.GroupVersion{Group: c.group, Version: to}.String())
		return list, nil
	case *unstructured.Unstructured:
		to, err := c.targetVersion(obj.GroupVersionKind(), target)
		if err != nil {
			return nil, err
		}
		out, err := c.convert(context.Background(), []*unstructured.Unstructured{obj.DeepCopy()}, to)
		if err != nil {
			return nil, err
		}
		return out[0], nil
	}
	return c.scheme.ConvertToVersion(in, target)
}

func (c *crdConverter) UnsafeConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	return c.ConvertToVersion(in, target)
}

// targetVersion is the version of this CRD target picks for from.
func (c *crdConverter) targetVersion(from schema.GroupVersionKind, target runtime.GroupVersioner) (string, error) {
	to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{from})
	if !ok {
		return "", fmt.Errorf("%v is unstructured and is not suitable for converting to %q", from, target)
	}
	if to.Version == from.Version {
		return to.Version, nil
	}
	if to.Group != c.group || !slices.Contains(c.versions, to.Version) {
		return "", fmt.Errorf("request to convert CR to an invalid group/version: %s", to.GroupVersion())
	}
	return to.Version, nil
}

// convert converts objs (owned by the caller, changed in place for
// strategy None) to version; objects already there are kept, and a
// webhook is called once for all the others.
func (c *crdConverter) convert(ctx context.Context, objs []*unstructured.Unstructured, version string) ([]*unstructured.Unstructured, error) {
	apiVersion := schema.GroupVersion{Group: c.group, Version: version}.String()
	var need []int
	for i, u := range objs {
		if u.GetAPIVersion() == apiVersion || !c.isCustomResource(u) {
			continue
		}
		if !c.webhook || isEmpty(u) {
			u.SetAPIVersion(apiVersion)
			continue
		}
		need = append(need, i)
	}
	if len(need) == 0 {
		return objs, nil
	}
	if c.converter == nil {
		return nil, errWebhookConversion
	}
	in := make([]*unstructured.Unstructured, len(need))
	for j, i := range need {
		in[j] = objs[i]
	}
	out, err := c.converter.Convert(ctx, in, schema.GroupVersion{Group: c.group, Version: version})
	if err != nil {
		return nil, err
	}
	if len(out) != len(in) {
		return nil, fmt.Errorf("conversion of %d objects returned %d", len(in), len(out))
	}
	result := slices.Clone(objs)
	for j, i := range need {
		result[i] = out[j]
	}
	return result, nil
}

// isEmpty: nothing but apiVersion and kind (the field manager converts a
// store's New() when apply creates); no webhook is asked about it.
func isEmpty(u *unstructured.Unstructured) bool {
	for k := range u.Object {
		if k != "apiVersion" && k != "kind" {
			return false
		}
	}
	return true
}

// ConvertFieldLabel accepts metadata.name, metadata.namespace and the
// version's selectableFields, as upstream.
func (c *crdConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	if label == "metadata.name" || label == "metadata.namespace" || c.fieldLabels[label] {
		return label, value, nil
	}
	return "", "", fmt.Errorf("field label not supported: %s", label)
}

type schemaGVK = schema.GroupVersionKind
