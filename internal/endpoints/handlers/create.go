package handlers

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// CreateResource serves POST to a collection: decode, mutating admission,
// then storage, which runs validating admission after its own validation.
func CreateResource(r rest.Creater, scope *RequestScope) http.HandlerFunc {
	return createHandler(r.New, false, func(ctx context.Context, _ string, obj runtime.Object, v rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
		return r.Create(ctx, obj, v, opts)
	}, scope)
}

// CreateNamedResource serves POST to a subresource of one object, such as
// pods/{name}/binding: the storage gets the parent's name.
func CreateNamedResource(r rest.NamedCreater, scope *RequestScope) http.HandlerFunc {
	return createHandler(r.New, true, r.Create, scope)
}

type createFunc func(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error)

func createHandler(newObj func() runtime.Object, named bool, create createFunc, scope *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, err := scope.resolve(req, named)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx, cancel := context.WithTimeout(t.ctx, requestTimeoutUpperBound)
		defer cancel()
		namespace := t.namespace
		if _, err := negotiation.NegotiateInputSerializer(req, false, scope.Serializer); err != nil {
			scope.err(err, w, req)
			return
		}
		body, err := limitedReadBody(req, scope.MaxRequestBodyBytes)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		opts, err := scope.createOptions(req)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx = withRequestOptions(ctx, opts)
		obj, err := scope.decodeBody(req, body, newObj(), fieldValidation(opts.FieldValidation))
		if err != nil {
			scope.err(err, w, req)
			return
		}
		name := t.name
		if accessor, err := meta.Accessor(obj); err == nil && !named {
			name = accessor.GetName()
		}
		// A namespace is its own namespace for admission.
		if namespace == "" && scope.Resource == namespaceGVR {
			namespace = name
		}
		ctx = withNamespace(ctx, namespace)
		wipeSystemFields(obj)
		if err := ensureNamespace(obj, nsForObject(scope, namespace)); err != nil {
			scope.err(err, w, req)
			return
		}
		dry := dryRun(opts.DryRun)
		dedupOwnerReferences(req.Context(), obj, false)
		// Before admission, as upstream: what admission adds is not the
		// client's to own.
		obj = scope.updateManagedFields(newObj(), obj, managerOrUserAgent(opts.FieldManager, req.UserAgent()))
		if err := scope.mutate(ctx, scope.attrs(ctx, admission.Create, namespace, name, obj, nil, dry)); err != nil {
			scope.err(err, w, req)
			return
		}
		dedupOwnerReferences(req.Context(), obj, true)
		result, err := create(ctx, t.name, obj, scope.validateObject(admission.Create, namespace, name, dry), opts)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		if status, ok := result.(*metav1.Status); ok && status.Code == 0 {
			status.Code = http.StatusCreated
		}
		scope.writeResponse(ctx, w, req, http.StatusCreated, t.mediaType, result)
	}
}

// nsForObject is the namespace an object of this scope must carry:
// namespaces and cluster-scoped objects carry none.
func nsForObject(scope *RequestScope, namespace string) string {
	if scope.Resource == namespaceGVR || !scope.NamespaceScoped {
		return ""
	}
	return namespace
}
