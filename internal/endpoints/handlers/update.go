package handlers

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// UpdateResource serves PUT of one object. Managed fields and mutating
// admission run inside storage's update against the current object (so
// they rerun on conflicts); validating admission runs after storage's
// validation.
// 201 when the update created the object, which it does through the
// storage's Create (updateMayCreate).
func UpdateResource(r rest.Updater, scope *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
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
		opts, err := scope.updateOptions(req)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx = withRequestOptions(ctx, opts)
		obj, err := scope.decodeBody(req, body, r.New(), fieldValidation(opts.FieldValidation))
		if err != nil {
			scope.err(err, w, req)
			return
		}
		if err := ensureNamespace(obj, nsForObject(scope, namespace)); err != nil {
			scope.err(err, w, req)
			return
		}
		if err := checkName(obj, name, namespace); err != nil {
			scope.err(err, w, req)
			return
		}
		dry := dryRun(opts.DryRun)
		dedupOwnerReferences(req.Context(), obj, false)
		manager := managerOrUserAgent(opts.FieldManager, req.UserAgent())
		info := &updatedObjectInfo{
			preconditions: uidPrecondition(obj),
			update: func(ctx context.Context, old runtime.Object) (runtime.Object, error) {
				// Managed fields are computed against the live object of
				// each attempt.
				newObj := scope.updateManagedFields(old, obj.DeepCopyObject(), manager)
				if err := scope.mutateOnUpdate(ctx, namespace, name, newObj, old, dry); err != nil {
					return nil, err
				}
				dedupOwnerReferences(req.Context(), newObj, true)
				keepManagedFieldsTimes(newObj, old)
				return newObj, nil
			},
		}
		result, created, err := updateMayCreate(ctx, r, name, info,
			scope.validateObject(admission.Create, namespace, name, dry),
			scope.validateObjectUpdate(namespace, name, dry),
			false, opts)
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
