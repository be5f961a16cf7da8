package controlplane

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/apiextensions/cel"
	"github.com/kapi-dev/kapi/internal/apiextensions/controllers"
	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
	crserver "github.com/kapi-dev/kapi/internal/apiextensions/server"
	"github.com/kapi-dev/kapi/internal/registry/apiextensions/customresourcedefinition"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// installExtensions makes s the extensions server: it serves
// apiextensions.k8s.io/v1 CustomResourceDefinitions, and every custom
// resource of an Established CRD under /apis/<group>/<version>, and runs
// the CRD controllers (names, establishing, cleanup).
func installExtensions(c *Config, s *server.GenericServer, deps chainDeps, in *apiInstaller) error {
	storage, err := customresourcedefinition.NewStorage(deps.scheme, deps.getter)
	if err != nil {
		return fmt.Errorf("customresourcedefinitions: %w", err)
	}
	if err := in.install(s, rest.APIGroupInfo{
		Group: apiextv1.GroupName, Versions: []string{"v1"},
		Storage: map[string]map[string]rest.Storage{"v1": storage},
	}); err != nil {
		return err
	}
	crds, ok := storage["customresourcedefinitions"].(crdStorage)
	if !ok {
		return fmt.Errorf("customresourcedefinitions storage lacks list, get, watch or update")
	}
	status, ok := storage["customresourcedefinitions/status"].(rest.Updater)
	if !ok {
		return fmt.Errorf("customresourcedefinitions/status storage lacks update")
	}
	resolver := &endpointResolver{}
	h, err := crserver.New(crserver.Config{
		Source:              crdSource{crds},
		RESTOptionsGetter:   deps.getter,
		Scheme:              deps.scheme,
		Admission:           in.admission,
		Discovery:           in.discovery,
		OpenAPI:             in.openapi,
		MaxRequestBodyBytes: c.MaxRequestBytes,
		MinRequestTimeout:   c.MinRequestTimeout,
		Logger:              deps.logger.With("component", "apiextensions"),
		Schema:              schemaCompiler{},
		Converters:          newWebhookConverters(resolver, c.webhookTransport()),
	})
	if err != nil {
		return err
	}
	// Every /apis path the core server does not serve comes here: custom
	// resources, and the discovery of their groups.
	s.Handler.APIMux.HandlePrefix("/apis/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isGroupDiscovery(r.URL.Path) {
			in.discovery.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	if err := s.AddReadyzChecks(healthz.NamedCheck("crd-informer-synced", func(*http.Request) error {
		if !h.HasSynced() {
			return fmt.Errorf("custom resource definitions are not served yet")
		}
		return nil
	})); err != nil {
		return err
	}
	if err := s.AddPostStartHook("start-apiextensions-controllers", func(hc server.PostStartHookContext) error {
		cs, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
		if err != nil {
			return err
		}
		resolver.start(cs)
		go h.Run(hc.Context)
		go func() {
			err := controllers.Run(hc.Context, controllers.Config{
				CRDs: crds, Status: status, Instances: h.Storage,
				Structural: structuralProblems,
				Logger:     deps.logger.With("component", "apiextensions-controllers"),
			})
			if err != nil && hc.Context.Err() == nil {
				deps.logger.Error("the CRD controllers stopped", "err", err)
			}
		}()
		return nil
	}); err != nil {
		return err
	}
	return nil
}

// isGroupDiscovery is /apis/<group> or /apis/<group>/.
func isGroupDiscovery(path string) bool {
	rest, ok := strings.CutPrefix(path, "/apis/")
	rest = strings.TrimSuffix(rest, "/")
	return ok && rest != "" && !strings.Contains(rest, "/")
}

// crdStorage is what the extensions server and the controllers need of
// the CRD registry.
type crdStorage interface {
	rest.Lister
	rest.Getter
	rest.Watcher
	rest.Updater
}

// crdSource lists and watches CRDs straight from their storage.
type crdSource struct{ store crdStorage }

func (s crdSource) List(ctx context.Context) ([]*apiextv1.CustomResourceDefinition, error) {
	obj, err := s.store.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*apiextv1.CustomResourceDefinitionList)
	if !ok {
		return nil, fmt.Errorf("customresourcedefinitions list is %T", obj)
	}
	out := make([]*apiextv1.CustomResourceDefinition, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// Watch ticks on every change; the channel closes when the watch ends.
func (s crdSource) Watch(ctx context.Context) (<-chan struct{}, error) {
	w, err := s.store.Watch(ctx, &metainternalversion.ListOptions{Watch: true, AllowWatchBookmarks: false})
	if err != nil {
		return nil, err
	}
	ticks := make(chan struct{}, 1)
	go func() {
		defer close(ticks)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-w.ResultChan():
				if !ok {
					return
				}
				select {
				case ticks <- struct{}{}:
				default:
				}
			}
		}
	}()
	return ticks, nil
}

// schemaCompiler gives the extensions server the schema machinery: the
// OpenAPI validator and the CEL rules, compiled once per CRD version.
type schemaCompiler struct{}

func (schemaCompiler) Compile(s *apiextv1.JSONSchemaProps) (crserver.VersionSchema, error) {
	structural, errs := schema.NewStructural(s, field.NewPath("openAPIV3Schema"))
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	v, err := schema.NewValidator(s)
	if err != nil {
		return nil, err
	}
	rules, err := cel.Compile(structural)
	if err != nil {
		return nil, err
	}
	return versionSchema{props: s, structural: structural, validator: v, rules: rules}, nil
}

type versionSchema struct {
	props      *apiextv1.JSONSchemaProps
	structural *schema.Structural
	validator  *schema.Validator
	rules      *cel.Validator // nil without x-kubernetes-validations
}

// Validate runs the OpenAPI validation, then the CEL rules unless the
// object already has an error that would make them misleading, as
// upstream does.
func (v versionSchema) Validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	errs := v.validator.Validate(obj)
	if v.rules == nil {
		return errs
	}
	if blocksRules(errs) {
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	return append(errs, v.rules.Validate(ctx, obj, old)...)
}

// blocksRules: wrong types, missing required fields, unsupported enum
// values and too long or too many values keep the CEL rules from running.
func blocksRules(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

func (v versionSchema) Prune(obj map[string]any) []string {
	return schema.Prune(obj, v.structural, true)
}
func (v versionSchema) Default(obj map[string]any)     { schema.Default(obj, v.structural) }
func (v versionSchema) OpenAPI() (*spec.Schema, error) { return schema.ToOpenAPI(v.props) }

// structuralProblems are the reasons a CRD's schemas are not structural.
func structuralProblems(crd *apiextv1.CustomResourceDefinition) []string {
	var out []string
	for i, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		path := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
		_, errs := schema.NewStructural(v.Schema.OpenAPIV3Schema, path)
		for _, e := range errs {
			out = append(out, e.Error())
		}
	}
	return out
}
