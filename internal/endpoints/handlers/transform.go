package handlers

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	metav1beta1validation "k8s.io/apimachinery/pkg/apis/meta/v1beta1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/storage"
)

// isMetaTarget reports whether target is one of the meta.k8s.io
// conversions the handlers perform.
func isMetaTarget(target *schema.GroupVersionKind) bool {
	if target == nil {
		return false
	}
	switch target.GroupVersion() {
	case metav1.SchemeGroupVersion, metav1beta1.SchemeGroupVersion:
	default:
		return false
	}
	switch target.Kind {
	case "Table", "PartialObjectMetadata", "PartialObjectMetadataList":
		return true
	}
	return false
}

// tableOptions decodes and validates the TableOptions of an as=Table
// request; nil for any other request.
func (s *RequestScope) tableOptions(mediaType negotiation.MediaTypeOptions, req *http.Request) (*metav1.TableOptions, error) {
	target := mediaType.Convert
	if target == nil || target.Kind != "Table" || !isMetaTarget(target) {
		return nil, nil
	}
	opts := &metav1.TableOptions{}
	if err := s.decodeQuery(req, opts); err != nil {
		return nil, err
	}
	switch errs := metav1beta1validation.ValidateTableOptions(opts); len(errs) {
	case 0:
		return opts, nil
	case 1:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs[0].Error()))
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs))
	}
}

// writeResponse converts result as the Accept header asked (Table,
// PartialObjectMetadata(List)) and writes it.
func (s *RequestScope) writeResponse(ctx context.Context, w http.ResponseWriter, req *http.Request, statusCode int, mediaType negotiation.MediaTypeOptions, result runtime.Object) {
	opts, err := s.tableOptions(mediaType, req)
	if err != nil {
		s.err(err, w, req)
		return
	}
	// An empty list must say "items": [], not null. Lists are never
	// shared with a cache, so changing it in place is safe.
	if meta.IsListType(result) && meta.LenList(result) == 0 {
		if err := meta.SetList(result, []runtime.Object{}); err != nil {
			s.err(err, w, req)
			return
		}
	}
	if mediaType.Convert == nil && meta.IsListType(result) {
		clearItemKinds(result)
	}
	obj, err := s.transformObject(ctx, result, opts, mediaType.Convert)
	if err != nil {
		s.err(err, w, req)
		return
	}
	var serializer runtime.NegotiatedSerializer = s.Serializer
	var gv runtime.GroupVersioner = s.encodeVersion()
	if sources := storage.ListSourcesFrom(ctx); sources != nil && mediaType.Convert == nil {
		serializer = withCachedItems(serializer, sources)
	}
	if isMetaTarget(mediaType.Convert) {
		serializer, gv = metaSerializer(), mediaType.Convert.GroupVersion()
		if mediaType.Convert.Kind == "Table" {
			serializer = tableMetaCodecs
		}
	}
	responsewriters.WriteObjectNegotiated(serializer, s, gv, w, req, statusCode, obj, false)
}

// transformObject returns obj as target; Status objects pass unchanged.
func (s *RequestScope) transformObject(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions, target *schema.GroupVersionKind) (runtime.Object, error) {
	if _, ok := obj.(*metav1.Status); ok || target == nil {
		return obj, nil
	}
	// A watch cache shares one object among watchers and caches its
	// encodings; a conversion needs the plain object, a copy of its own.
	if co, ok := obj.(runtime.CacheableObject); ok {
		obj = co.GetObject()
	}
	if !isMetaTarget(target) {
		supported, _ := negotiation.MediaTypesForSerializer(metaSerializer())
		return nil, negotiation.NewNotAcceptableError(supported)
	}
	switch target.Kind {
	case "PartialObjectMetadata":
		return asPartialObjectMetadata(obj, target.GroupVersion())
	case "PartialObjectMetadataList":
		return asPartialObjectMetadataList(obj, target.GroupVersion())
	default:
		if opts == nil {
			opts = &metav1.TableOptions{}
		}
		return s.asTable(ctx, obj, opts, target.GroupVersion())
	}
}

// notAcceptable is the 406 of a conversion that cannot apply to this
// object.
func notAcceptable(msg string) error {
	return apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", schema.GroupResource{}, "", msg, 0, false)
}

func (s *RequestScope) asTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions, gv schema.GroupVersion) (runtime.Object, error) {
	table, err := s.TableConvertor.ConvertToTable(ctx, obj, opts)
	if err != nil {
		return nil, err
	}
	// Storage may ignore NoHeaders; later watch events must not repeat
	// the columns.
	if opts.NoHeaders {
		table.ColumnDefinitions = nil
	}
	for i := range table.Rows {
		row := &table.Rows[i]
		if row.Object.Object == nil {
			continue
		}
		if row.Object.Object, err = s.tableRowObject(row.Object.Object, opts, gv); err != nil {
			return nil, err
		}
	}
	return table, nil
}

// tableRowObject is what a row embeds for includeObject.
func (s *RequestScope) tableRowObject(obj runtime.Object, opts *metav1.TableOptions, gv schema.GroupVersion) (runtime.Object, error) {
	switch {
	case opts.IncludeObject == metav1.IncludeObject:
		return s.Convertor.ConvertToVersion(obj, s.Kind.GroupVersion())
	case opts.IncludeObject == metav1.IncludeMetadata, opts.IncludeObject == "", isInitialEventsEnd(obj):
		return partialObjectMetadata(obj, gv)
	case opts.IncludeObject == metav1.IncludeNone:
		return nil, nil
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unrecognized includeObject value: %q", opts.IncludeObject))
	}
}

// isInitialEventsEnd reports the bookmark that ends the initial events of
// a watch-list; its table row keeps the metadata even under
// includeObject=None, so the client sees the annotation.
func isInitialEventsEnd(obj runtime.Object) bool {
	accessor, err := meta.Accessor(obj)
	return err == nil && accessor.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}

func asPartialObjectMetadata(obj runtime.Object, gv schema.GroupVersion) (runtime.Object, error) {
	if meta.IsListType(obj) {
		return nil, notAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%T)", obj))
	}
	return partialObjectMetadata(obj, gv)
}

// partialObjectMetadata is the metadata of obj as a meta.k8s.io object.
func partialObjectMetadata(obj runtime.Object, gv schema.GroupVersion) (*metav1.PartialObjectMetadata, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	partial := meta.AsPartialObjectMetadata(accessor)
	partial.SetGroupVersionKind(gv.WithKind("PartialObjectMetadata"))
	return partial, nil
}

// objectMetaOf copies an object's metadata; the maps and slices in it
// stay shared, which is safe because the copy is only encoded.
func objectMetaOf(accessor metav1.Object) metav1.ObjectMeta {
	if om, ok := accessor.(*metav1.ObjectMeta); ok {
		return *om
	}
	return meta.AsPartialObjectMetadata(accessor).ObjectMeta
}

func asPartialObjectMetadataList(obj runtime.Object, gv schema.GroupVersion) (runtime.Object, error) {
	li, ok := obj.(metav1.ListInterface)
	if !ok {
		return nil, notAcceptable(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%T)", obj))
	}
	// One allocation for all the items: built one by one, a list of 10,000
	// grew through a dozen copies of itself.
	items := make([]metav1.PartialObjectMetadata, 0, meta.LenList(obj))
	kind := gv.WithKind("PartialObjectMetadata")
	err := meta.EachListItem(obj, func(item runtime.Object) error {
		accessor, err := meta.Accessor(item)
		if err != nil {
			return err
		}
		items = append(items, metav1.PartialObjectMetadata{ObjectMeta: objectMetaOf(accessor)})
		items[len(items)-1].SetGroupVersionKind(kind)
		return nil
	})
	if err != nil {
		return nil, err
	}
	listMeta := metav1.ListMeta{
		ResourceVersion:    li.GetResourceVersion(),
		Continue:           li.GetContinue(),
		RemainingItemCount: li.GetRemainingItemCount(),
	}
	if gv == metav1beta1.SchemeGroupVersion {
		return &metav1beta1.PartialObjectMetadataList{ListMeta: listMeta, Items: items}, nil
	}
	return &metav1.PartialObjectMetadataList{ListMeta: listMeta, Items: items}, nil
}
