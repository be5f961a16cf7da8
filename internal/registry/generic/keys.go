package generic

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// Storage keys follow kube-apiserver's layout (the backend adds its own
// prefix, "/registry"):
//
//	namespaced:     <prefix>/<namespace>/<name>
//	cluster-scoped: <prefix>/<name>
//
// Roots end with "/" so that a prefix scan of namespace "ns" does not also
// read namespace "ns2".

// NamespaceKeyRootFunc is the folder a list reads: one namespace, or every
// namespace when the request has none.
func NamespaceKeyRootFunc(ctx context.Context, prefix string) string {
	if ns := request.NamespaceValue(ctx); ns != "" {
		return prefix + "/" + ns + "/"
	}
	return prefix + "/"
}

// NamespaceKeyFunc is the key of one namespaced object. A request without
// a namespace or a name that cannot be one path segment is a 400.
func NamespaceKeyFunc(ctx context.Context, prefix string, name string) (string, error) {
	ns := request.NamespaceValue(ctx)
	if ns == "" {
		return "", apierrors.NewBadRequest("Namespace parameter required.")
	}
	if err := validateKeyName(name); err != nil {
		return "", err
	}
	return prefix + "/" + ns + "/" + name, nil
}

// NoNamespaceKeyRootFunc is the folder of a cluster-scoped resource.
func NoNamespaceKeyRootFunc(_ context.Context, prefix string) string {
	return prefix + "/"
}

// NoNamespaceKeyFunc is the key of one cluster-scoped object.
func NoNamespaceKeyFunc(_ context.Context, prefix string, name string) (string, error) {
	if err := validateKeyName(name); err != nil {
		return "", err
	}
	return prefix + "/" + name, nil
}

// validateKeyName keeps a name from escaping its folder ("..", "a/b") or
// being read as an escape ("%"), with upstream's messages.
func validateKeyName(name string) error {
	if name == "" {
		return apierrors.NewBadRequest("Name parameter required.")
	}
	if msgs := content.IsPathSegmentName(name); len(msgs) > 0 {
		return apierrors.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", name, strings.Join(msgs, ";")))
	}
	return nil
}
