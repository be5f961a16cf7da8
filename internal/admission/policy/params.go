package policy

import (
	"context"
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// ParamStore reads the objects of one paramKind.
type ParamStore interface {
	// Namespaced reports whether the kind is namespaced.
	Namespaced() bool
	// Get returns the named object (a NotFound error when there is none).
	Get(ctx context.Context, namespace, name string) (map[string]any, error)
	// List returns the objects selector matches.
	List(ctx context.Context, namespace string, selector labels.Selector) ([]map[string]any, error)
}

// ParamSource finds the store of a paramKind.
type ParamSource interface {
	// Store returns the store of apiVersion/kind, or an error when the
	// kind is not known.
	Store(ctx context.Context, apiVersion, kind string) (ParamStore, error)
}

// CollectParams returns the parameter objects a binding's paramRef
// selects: one nil entry when the policy takes no params (or the binding
// gives no paramRef), none when nothing is found and the binding allows
// it. An error is a configuration error, which the failure policy judges.
func CollectParams(ctx context.Context, src ParamSource, kind *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef, namespace string) ([]map[string]any, error) {
	if kind == nil || ref == nil {
		return []map[string]any{nil}, nil
	}
	kindString := fmt.Sprintf("%s, Kind=%s", kind.APIVersion, kind.Kind)
	if src == nil {
		return nil, fmt.Errorf("paramKind kind `%v` not known", kindString)
	}
	store, err := src.Store(ctx, kind.APIVersion, kind.Kind)
	if err != nil {
		return nil, fmt.Errorf("paramKind kind `%v` not known", kindString)
	}
	ns := ""
	if store.Namespaced() {
		ns = namespace
		if ref.Namespace != "" {
			ns = ref.Namespace
		} else if ns == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	} else if ref.Namespace != "" {
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	var params []map[string]any
	switch {
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		p, err := store.Get(ctx, ns, ref.Name)
		switch {
		case err == nil:
			params = append(params, p)
		case apierrors.IsNotFound(err):
		default:
			return nil, err
		}
	case ref.Selector != nil:
		sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, err
		}
		params, err = store.List(ctx, ns, sel)
		if err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if len(params) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistrationv1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return params, nil
}
