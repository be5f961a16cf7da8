package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scale"
)

// servedCRD is everything one Established CRD is served with: one store
// (the storage version) and, per served version, the verb handlers.
type servedCRD struct {
	uid, resourceVersion string
	group, plural        string
	namespaced           bool
	codecs               *crdCodecs
	store                *generic.Store
	storage              map[string]rest.Storage // "plural", "plural/status", "plural/scale"
	versions             map[string]*servedVersion
	// typeConverter and resetFields feed the endpoints' field managers.
	typeConverter managedfields.TypeConverter
	resetFields   map[string]map[string]struct{} // by storage path
	schemas       map[string]VersionSchema
	// users holds the store until the last request using it is done.
	users *users
}

type servedVersion struct {
	name      string
	resources []metav1.APIResource
	// verbs by "plural[/sub]" then verb.
	verbs map[string]map[string]http.Handler
	// warnings go with every request to the version (deprecation).
	warnings []string
}

func storageVersionOf(crd *apiextv1.CustomResourceDefinition) (string, error) {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name, nil
		}
	}
	return "", fmt.Errorf("CRD %s has no storage version", crd.Name)
}

// buildCRD builds the store and handlers of crd.
func (h *Handler) buildCRD(crd *apiextv1.CustomResourceDefinition) (*servedCRD, error) {
	storageVersion, err := storageVersionOf(crd)
	if err != nil {
		return nil, err
	}
	group, names := crd.Spec.Group, crd.Status.AcceptedNames
	if names.Plural == "" {
		names = crd.Spec.Names
	}
	if names.ListKind == "" {
		names.ListKind = names.Kind + "List"
	}
	scheme := runtime.NewScheme()
	if err := metainternalversion.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := autoscalingv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	conv := &crdConverter{scheme: scheme, group: group, kind: names.Kind, versions: []string{storageVersion}, fieldLabels: map[string]bool{},
		webhook: crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextv1.WebhookConverter}
	if conv.webhook && h.c.Converters != nil {
		if conv.converter, err = h.c.Converters.NewConverter(crd); err != nil {
			return nil, fmt.Errorf("conversion webhook: %w", err)
		}
	}
	served := map[string]bool{}
	st := &strategy{typer: crdTyper{scheme: scheme}, namespaced: crd.Spec.Scope == apiextv1.NamespaceScoped,
		schemas: map[string]VersionSchema{}, storageVersion: storageVersion}
	var storageVer apiextv1.CustomResourceDefinitionVersion
	for _, v := range crd.Spec.Versions {
		if v.Name == storageVersion {
			storageVer = v
		}
		if !v.Served && !v.Storage {
			continue
		}
		served[v.Name] = v.Served
		metav1.AddToGroupVersion(scheme, schema.GroupVersion{Group: group, Version: v.Name})
		if v.Name != storageVersion {
			conv.versions = append(conv.versions, v.Name)
		}
		vs, err := h.compile(v)
		if err != nil {
			return nil, fmt.Errorf("schema of version %s: %w", v.Name, err)
		}
		st.schemas[v.Name] = vs
		for _, f := range v.SelectableFields {
			conv.fieldLabels[strings.TrimPrefix(f.JSONPath, ".")] = true
		}
	}
	st.hasStatus = storageVer.Subresources != nil && storageVer.Subresources.Status != nil
	storageGVK := schema.GroupVersionKind{Group: group, Version: storageVersion, Kind: names.Kind}
	tc, err := newTableConvertor(storageVer.AdditionalPrinterColumns)
	if err != nil {
		return nil, err
	}
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc: func() runtime.Object {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(storageGVK)
			return u
		},
		NewListFunc: func() runtime.Object {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(storageGVK.GroupVersion().WithKind(names.ListKind))
			return l
		},
		Resource:       schema.GroupResource{Group: group, Resource: names.Plural},
		Singular:       schema.GroupResource{Group: group, Resource: names.Singular},
		Strategy:       st,
		TableConvertor: tc,
		AttrFunc:       attrFunc(st.namespaced, conv.fieldLabels),
		ShortNames:     names.ShortNames,
		Categories:     names.Categories,
	}, versionedOptions{RESTOptionsGetter: h.c.RESTOptionsGetter, versions: &crdVersions{conv: conv,
		storageVersion: storageVersion, schemas: st.schemas, served: served}})
	if err != nil {
		return nil, err
	}
	s := &servedCRD{uid: string(crd.UID), resourceVersion: crd.ResourceVersion, group: group, plural: names.Plural,
		namespaced: st.namespaced, codecs: newCRDCodecs(scheme, conv, st.schemas), store: store,
		storage: map[string]rest.Storage{names.Plural: store}, versions: map[string]*servedVersion{},
		typeConverter: h.fieldManagers.typeConverter(group, names.Kind, st.schemas),
		resetFields:   map[string]map[string]struct{}{names.Plural: st.GetResetFields()}, schemas: st.schemas,
		users: newUsers(store.Destroy)}
	if st.hasStatus {
		statusSt := *st
		statusSt.statusWrite = true
		s.storage[names.Plural+"/status"] = generic.NewStatusREST(store, &statusSt)
		s.resetFields[names.Plural+"/status"] = statusSt.GetResetFields()
	}
	if sc := storageVer.Subresources; sc != nil && sc.Scale != nil {
		s.storage[names.Plural+"/scale"] = scale.NewREST(store, scaleAccessor(sc.Scale))
	}
	for _, v := range crd.Spec.Versions {
		if v.Served {
			sv, err := s.buildVersion(h, v.Name, names, storageVersion)
			if err != nil {
				return nil, fmt.Errorf("version %s: %w", v.Name, err)
			}
			if v.Deprecated {
				sv.warnings = append(sv.warnings, deprecationWarning(v, crd.Spec))
			}
			s.versions[v.Name] = sv
		}
	}
	return s, nil
}

func (h *Handler) compile(v apiextv1.CustomResourceDefinitionVersion) (VersionSchema, error) {
	if h.c.Schema == nil || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return noSchema{}, nil
	}
	return h.c.Schema.Compile(v.Schema.OpenAPIV3Schema)
}

// attrFunc adds the selectable fields to the default attributes.
func attrFunc(namespaced bool, selectable map[string]bool) func(runtime.Object) (labels.Set, fields.Set, error) {
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		def := generic.DefaultClusterScopedAttr
		if namespaced {
			def = generic.DefaultNamespaceScopedAttr
		}
		l, f, err := def(obj)
		if err != nil {
			return nil, nil, err
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return l, f, nil
		}
		for path := range selectable {
			v, found, _ := unstructured.NestedFieldNoCopy(u.Object, strings.Split(path, ".")...)
			if found {
				f[path] = fmt.Sprint(v)
			} else {
				f[path] = ""
			}
		}
		return l, f, nil
	}
}

// buildVersion builds the handlers of one served version.
func (s *servedCRD) buildVersion(h *Handler, version string, names apiextv1.CustomResourceDefinitionNames, storageVersion string) (*servedVersion, error) {
	gv := schema.GroupVersion{Group: s.group, Version: version}
	sv := &servedVersion{name: version, verbs: map[string]map[string]http.Handler{}}
	paths := make([]string, 0, len(s.storage))
	for p := range s.storage {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		st := s.storage[p]
		_, sub, _ := strings.Cut(p, "/")
		kind := gv.WithKind(names.Kind)
		if sub == "scale" {
			kind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")
		}
		scope := h.scope(s, gv, names.Plural, sub, kind, st)
		fm, err := s.fieldManager(h, kind, sub, s.resetFields[p])
		if err != nil {
			return nil, err
		}
		scope.FieldManager = fm
		verbs := verbHandlers(st, scope)
		sv.verbs[p] = verbs
		r := metav1.APIResource{Name: p, Namespaced: s.namespaced, Kind: kind.Kind}
		if sub == "scale" {
			r.Group, r.Version = kind.Group, kind.Version
		}
		for v := range verbs {
			r.Verbs = append(r.Verbs, v)
		}
		slices.Sort(r.Verbs)
		if sub == "" {
			r.SingularName = names.Singular
			r.ShortNames = names.ShortNames
			r.Categories = names.Categories
			r.StorageVersionHash = discovery.StorageVersionHash(s.group, storageVersion, names.Kind)
		}
		sv.resources = append(sv.resources, r)
	}
	return sv, nil
}

// fieldManager is the field manager of one endpoint, built with the CRD:
// the custom resource's for the resource and its status, the Scale's for
// scale.
func (s *servedCRD) fieldManager(h *Handler, kind schema.GroupVersionKind, sub string, reset map[string]struct{}) (*managedfields.FieldManager, error) {
	if sub == "scale" {
		return h.fieldManagers.scaleFieldManager()
	}
	return crdFieldManager(s.typeConverter, s.codecs.conv, s.schemas, kind, sub, reset)
}

func (h *Handler) scope(s *servedCRD, gv schema.GroupVersion, plural, sub string, kind schema.GroupVersionKind, st rest.Storage) *handlers.RequestScope {
	tc, _ := st.(rest.TableConvertor)
	return &handlers.RequestScope{
		Serializer:          s.codecs,
		ParameterCodec:      runtime.NewParameterCodec(s.codecs.conv.scheme),
		Creater:             s.codecs.conv.scheme,
		Convertor:           s.codecs.conv,
		Defaulter:           crdDefaulter{conv: s.codecs.conv, schemas: s.schemas},
		Typer:               s.codecs.typer,
		TableConvertor:      tc,
		Resource:            gv.WithResource(plural),
		Subresource:         sub,
		Kind:                kind,
		NamespaceScoped:     s.namespaced,
		Admission:           h.c.Admission,
		MaxRequestBodyBytes: h.c.MaxRequestBodyBytes,
		MinRequestTimeout:   h.c.MinRequestTimeout,
		Logger:              h.logger.With("resource", strings.Trim(plural+"/"+sub, "/"), "groupVersion", gv.String()),
	}
}

// verbHandlers are the handlers of the verbs st implements; custom
// resources take JSON and merge patches, not strategic merge.
func verbHandlers(st rest.Storage, scope *handlers.RequestScope) map[string]http.Handler {
	v := map[string]http.Handler{}
	lister, _ := st.(rest.Lister)
	watcher, _ := st.(rest.Watcher)
	if r, ok := st.(rest.Getter); ok {
		v["get"] = handlers.GetResource(r, scope)
	}
	if lister != nil {
		v["list"] = handlers.ListResource(lister, watcher, scope, false)
	}
	if watcher != nil {
		v["watch"] = handlers.ListResource(lister, watcher, scope, true)
	}
	if r, ok := st.(rest.Creater); ok {
		v["create"] = handlers.CreateResource(r, scope)
	}
	if r, ok := st.(rest.Updater); ok {
		v["update"] = handlers.UpdateResource(r, scope)
	}
	if r, ok := st.(rest.Patcher); ok {
		types := handlers.PatchTypes(false)
		if scope.FieldManager != nil {
			types = append(types, handlers.ApplyPatchTypes()...)
		}
		v["patch"] = handlers.PatchResource(r, scope, types)
	}
	if r, ok := st.(rest.GracefulDeleter); ok {
		v["delete"] = handlers.DeleteResource(r, scope)
	}
	if r, ok := st.(rest.CollectionDeleter); ok {
		v["deletecollection"] = handlers.DeleteCollection(r, scope)
	}
	return v
}
