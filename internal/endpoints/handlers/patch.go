package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// PatchTypes lists the patch content types served: JSON patch and merge
// patch always, strategic merge patch for Go types, whose struct tags say
// how lists merge. Endpoints with a field manager add ApplyPatchTypes.
func PatchTypes(strategic bool) []string {
	t := []string{string(types.JSONPatchType), string(types.MergePatchType)}
	if strategic {
		t = append(t, string(types.StrategicMergePatchType))
	}
	return t
}

// PatchResource serves PATCH of one object. The patch is applied inside
// storage's update to the current object, so a conflict reapplies it to
// fresh data. Server-side apply may create the object (201), which is a
// create through the storage's Create (updateMayCreate).
func PatchResource(r rest.Patcher, scope *RequestScope, patchTypes []string) http.HandlerFunc {
	limitJSONPatchCopies(scope.MaxRequestBodyBytes)
	return func(w http.ResponseWriter, req *http.Request) {
		// The type is checked first: it decides everything else.
		contentType, _, _ := strings.Cut(req.Header.Get("Content-Type"), ";")
		patchType := types.PatchType(strings.TrimSpace(contentType))
		if !slices.Contains(patchTypes, string(patchType)) || (isApply(patchType) && scope.FieldManager == nil) {
			scope.err(negotiation.NewUnsupportedMediaTypeError(patchTypes), w, req)
			return
		}
		t, err := scope.resolve(req, true)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx, cancel := context.WithTimeout(t.ctx, requestTimeoutUpperBound)
		defer cancel()
		namespace, name := t.namespace, t.name
		body, err := limitedReadBody(req, scope.MaxRequestBodyBytes)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		opts, err := scope.patchOptions(req, patchType)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx = withRequestOptions(ctx, opts)
		if err := checkPatchSyntax(patchType, body); err != nil {
			scope.err(err, w, req)
			return
		}
		p := &patcher{
			scope: scope, newObj: r.New, namespace: namespace, name: name,
			patchType: patchType, patch: body,
			directive: fieldValidation(opts.FieldValidation), dryRun: dryRun(opts.DryRun),
			manager: managerOrUserAgent(opts.FieldManager, req.UserAgent()), force: ptr.Deref(opts.Force, false),
		}
		result, created, err := updateMayCreate(ctx, r, name, &updatedObjectInfo{update: p.update},
			scope.validateObject(admission.Create, namespace, name, p.dryRun),
			scope.validateObjectUpdate(namespace, name, p.dryRun),
			isApply(patchType), patchToUpdateOptions(opts))
		if err != nil {
			scope.err(err, w, req)
			return
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		scope.writeResponse(ctx, w, req, status, t.mediaType, result)
	}
}

// checkPatchSyntax refuses a body that is not a document of its type, before
// anything is read from storage.
func checkPatchSyntax(patchType types.PatchType, body []byte) error {
	if isApply(patchType) {
		if _, err := utilyaml.ToJSON(body); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", err))
		}
		return nil
	}
	if !json.Valid(body) {
		return apierrors.NewBadRequest("invalid JSON patch")
	}
	return nil
}

// patchToUpdateOptions carries the options of a patch to the update that
// applies it.
func patchToUpdateOptions(po *metav1.PatchOptions) *metav1.UpdateOptions {
	uo := &metav1.UpdateOptions{DryRun: po.DryRun, FieldManager: po.FieldManager, FieldValidation: po.FieldValidation}
	uo.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("UpdateOptions"))
	return uo
}

// patcher applies one patch request to whatever object storage holds.
type patcher struct {
	scope           *RequestScope
	newObj          func() runtime.Object
	namespace, name string
	patchType       types.PatchType
	patch           []byte
	directive       string
	dryRun          bool
	// manager owns what the patch sets; force takes applied fields from
	// other managers instead of failing on conflicts.
	manager string
	force   bool
}

// update is the UpdatedObject of a patch: apply, check the result still
// names the object, then mutating admission.
func (p *patcher) update(ctx context.Context, current runtime.Object) (runtime.Object, error) {
	if err := checkDeadline(ctx); err != nil {
		return nil, err
	}
	exists, err := hasUID(current)
	if err != nil {
		return nil, err
	}
	obj, err := p.patched(ctx, current, exists)
	if err != nil {
		return nil, err
	}
	if err := ensureNamespace(obj, nsForObject(p.scope, p.namespace)); err != nil {
		return nil, err
	}
	if err := checkName(obj, p.name, p.namespace); err != nil {
		return nil, err
	}
	if err := p.scope.mutateOnUpdate(ctx, p.namespace, p.name, obj, current, p.dryRun); err != nil {
		return nil, err
	}
	dedupOwnerReferences(ctx, obj, true)
	keepManagedFieldsTimes(obj, current)
	return obj, nil
}

// patched is the current object with the patch applied and its managed
// fields updated. Only apply creates: other patches need something to
// patch.
func (p *patcher) patched(ctx context.Context, current runtime.Object, exists bool) (runtime.Object, error) {
	if isApply(p.patchType) {
		return p.apply(ctx, current, exists)
	}
	if !exists {
		return nil, apierrors.NewNotFound(p.scope.Resource.GroupResource(), p.name)
	}
	var obj runtime.Object
	var err error
	if p.patchType == types.StrategicMergePatchType {
		obj, err = p.applyStrategic(ctx, current)
	} else {
		obj, err = p.applyJSON(ctx, current)
	}
	if err != nil {
		return nil, err
	}
	return p.scope.updateManagedFields(current, obj, p.manager), nil
}

// applyJSON applies a JSON or merge patch to the JSON of the current
// object in the endpoint's version, then decodes the result.
func (p *patcher) applyJSON(ctx context.Context, current runtime.Object) (runtime.Object, error) {
	info, ok := runtime.SerializerInfoForMediaType(p.scope.Serializer.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("no JSON serializer"))
	}
	currentJS, err := runtime.Encode(p.scope.Serializer.EncoderForVersion(info.Serializer, p.scope.encodeVersion()), current)
	if err != nil {
		return nil, err
	}
	patchedJS, strictErrs, err := p.applyJSONBytes(currentJS)
	if err != nil {
		return nil, err
	}
	if err := checkDeadline(ctx); err != nil {
		return nil, err
	}
	decoderSerializer := info.Serializer
	if p.directive != metav1.FieldValidationIgnore {
		decoderSerializer = info.StrictSerializer
	}
	obj := p.newObj()
	err = runtime.DecodeInto(p.scope.Serializer.DecoderToVersion(decoderSerializer, p.scope.Kind.GroupVersion()), patchedJS, obj)
	if err := p.strictResult(ctx, err, strictErrs, string(patchedJS)); err != nil {
		return nil, err
	}
	p.scope.defaultHub(obj)
	return obj, nil
}

// applyJSONBytes applies the patch; strict errors (duplicate fields in the
// patch itself) are returned for the caller to weigh.
func (p *patcher) applyJSONBytes(current []byte) ([]byte, []error, error) {
	var strictErrs []error
	if p.patchType == types.JSONPatchType {
		if p.directive != metav1.FieldValidationIgnore {
			var ops []jsonPatchOp
			var err error
			if strictErrs, err = kjson.UnmarshalStrict(p.patch, &ops); err != nil {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			for i, e := range strictErrs {
				strictErrs[i] = fmt.Errorf("json patch %w", e)
			}
		}
		patchObj, err := jsonpatch.DecodePatch(p.patch)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		if len(patchObj) > maxJSONPatchOperations {
			return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(patchObj)))
		}
		patched, err := patchObj.Apply(current)
		if err != nil {
			return nil, nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return patched, strictErrs, nil
	}
	if p.directive != metav1.FieldValidationIgnore {
		var err error
		if strictErrs, err = kjson.UnmarshalStrict(p.patch, &map[string]any{}); err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
	}
	patched, err := jsonpatch.MergePatch(current, p.patch)
	if errors.Is(err, jsonpatch.ErrBadJSONPatch) {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	return patched, strictErrs, err
}

// jsonPatchOp is the shape of a JSON patch operation, for strict checks.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// strictResult weighs the decoding error of a patched object and the
// strict errors of the patch: fatal errors and, under Strict, unknown or
// duplicate fields are 422 on the patch; under Warn they become warnings.
func (p *patcher) strictResult(ctx context.Context, decodeErr error, strictErrs []error, patched string) error {
	if decodeErr != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(decodeErr)
		if !isStrict {
			return patchInvalid(patched, decodeErr.Error())
		}
		strictErrs = append(strictErrs, strictErr.Errors()...)
	}
	if len(strictErrs) == 0 {
		return nil
	}
	if p.directive == metav1.FieldValidationWarn {
		addStrictDecodingWarnings(ctx, strictErrs)
		return nil
	}
	return patchInvalid(patched, runtime.NewStrictDecodingError(strictErrs).Error())
}

func patchInvalid(patched, msg string) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), patched, msg),
	})
}

// applyStrategic applies a strategic merge patch, using the Go type's
// patch metadata (merge keys, strategies) to merge lists.
func (p *patcher) applyStrategic(ctx context.Context, current runtime.Object) (runtime.Object, error) {
	// The patch is written against the endpoint's version, which may not
	// be the storage's (autoscaling/v1 over a v2 hub).
	served, err := p.scope.Convertor.ConvertToVersion(current.DeepCopyObject(), p.scope.encodeVersion())
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	original, err := runtime.DefaultUnstructuredConverter.ToUnstructured(served)
	if err != nil {
		return nil, err
	}
	patchMap := map[string]any{}
	var strictErrs []error
	if p.directive != metav1.FieldValidationIgnore {
		strictErrs, err = kjson.UnmarshalStrict(p.patch, &patchMap)
	} else {
		err = kjson.UnmarshalCaseSensitivePreserveInts(p.patch, &patchMap)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	schemaObj, err := p.scope.Creater.New(served.GetObjectKind().GroupVersionKind())
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	patched, err := strategicpatch.StrategicMergeMapPatch(original, patchMap, schemaObj)
	if err != nil {
		return nil, interpretStrategicMergePatchError(err)
	}
	result := schemaObj.DeepCopyObject()
	returnUnknown := p.directive != metav1.FieldValidationIgnore
	err = runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(patched, result, returnUnknown)
	if err := p.strictResult(ctx, err, strictErrs, fmt.Sprintf("%+v", patchMap)); err != nil {
		return nil, err
	}
	// Decoding JSON would have defaulted the object; do the same.
	p.scope.Defaulter.Default(result)
	obj := p.newObj()
	if reflect.TypeOf(obj) == reflect.TypeOf(result) {
		return result, nil
	}
	if err := p.scope.Convertor.Convert(result, obj, nil); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	p.scope.defaultHub(obj)
	return obj, nil
}

// interpretStrategicMergePatchError gives malformed patches 400 and
// unmergeable ones 422, as upstream.
func interpretStrategicMergePatchError(err error) error {
	badRequest := []error{mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat}
	unprocessable := []error{mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys}
	is := func(e error) bool { return errors.Is(err, e) }
	switch {
	case slices.ContainsFunc(badRequest, is):
		return apierrors.NewBadRequest(err.Error())
	case slices.ContainsFunc(unprocessable, is):
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	default:
		return err
	}
}
