package kapitest

import (
	"log/slog"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Option changes how Start builds a server.
type Option func(*options)

type options struct {
	etcd               bool
	crdPaths           []string
	crds               []*apiextensionsv1.CustomResourceDefinition
	users              []user
	authorizationModes []string
	enableAdmission    []string
	disableAdmission   []string
	controllers        []string
	logger             *slog.Logger
	simulatedNodes     int
}

// user is an extra identity Start issues a client certificate for.
type user struct {
	name   string
	groups []string
}

func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithEtcd stores objects in an embedded etcd under t.TempDir() instead of
// memory: slower to start, but the storage kube-apiserver uses, with its
// resource versions, compaction and encoding.
func WithEtcd() Option { return func(o *options) { o.etcd = true } }

// WithCRDPaths installs the CustomResourceDefinitions in files (YAML, with
// any number of documents, or JSON) and in folders (their *.yaml, *.yml
// and *.json files, not recursive) before Start returns. Documents of other
// kinds are an error.
func WithCRDPaths(paths ...string) Option {
	return func(o *options) { o.crdPaths = append(o.crdPaths, paths...) }
}

// WithCRDs installs crds before Start returns. They are copied: the
// caller's objects are not modified.
func WithCRDs(crds ...*apiextensionsv1.CustomResourceDefinition) Option {
	return func(o *options) {
		for _, crd := range crds {
			o.crds = append(o.crds, crd.DeepCopy())
		}
	}
}

// WithUser adds a user authenticated by a client certificate with name as
// its common name and groups as its organizations, exactly as
// kube-apiserver reads one; Server.UserConfig returns its config. The user
// has no permission beyond what the authorization mode grants it (RBAC by
// default: bind a role to it, or put it in system:masters).
func WithUser(name string, groups ...string) Option {
	return func(o *options) { o.users = append(o.users, user{name: name, groups: slices.Clone(groups)}) }
}

// WithAuthorizationModes sets the authorizers in order, as
// kube-apiserver's --authorization-mode (AlwaysAllow, AlwaysDeny, RBAC,
// Node, ...). The default is Node,RBAC; the admin config is in
// system:masters and passes either way.
func WithAuthorizationModes(modes ...string) Option {
	return func(o *options) { o.authorizationModes = slices.Clone(modes) }
}

// WithAdmissionPlugins switches admission plugins on and off beyond the
// default list, as --enable-admission-plugins and
// --disable-admission-plugins do. An unknown name fails Start.
func WithAdmissionPlugins(enable, disable []string) Option {
	return func(o *options) {
		o.enableAdmission = append(o.enableAdmission, enable...)
		o.disableAdmission = append(o.disableAdmission, disable...)
	}
}

// WithControllers chooses the in-process controllers in
// kube-controller-manager's --controllers syntax: "*" for all kapi has,
// "name" to turn one on, "-name" to turn one off; no name at all runs
// none, as envtest's kube-apiserver does. Without this option every
// controller runs (service accounts, kube-root-ca.crt, garbage
// collection, quotas, ...), as in a cluster. An unknown name fails Start.
func WithControllers(names ...string) Option {
	return func(o *options) { o.controllers = append([]string{}, names...) }
}

// WithLogger receives the server's logs; the default discards them.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }
