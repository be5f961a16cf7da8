// Package componentstatus serves core/v1 componentstatuses: a deprecated,
// read-only, cluster-scoped resource computed on each request from health
// probes (etcd's), never stored.
package componentstatus

import (
	"context"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// deprecationWarning is the Warning header upstream sends on every
// request for a kind that is deprecated in its version.
const deprecationWarning = "v1 ComponentStatus is deprecated in v1.19+"

// Options are the inputs of the storage besides the scheme.
type Options struct {
	// Probes maps a component name ("etcd-0") to its health check; nil
	// means healthy. Each request runs them all, concurrently.
	Probes map[string]func(ctx context.Context) error
}

// REST serves componentstatuses: get and list.
type REST struct {
	probes map[string]func(context.Context) error
	table  rest.TableConvertor
}

var (
	_ rest.Getter               = (*REST)(nil)
	_ rest.Lister               = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.ShortNamesProvider   = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewStorage builds the storage of "componentstatuses" over opts.Probes.
// Nothing is stored, so neither the scheme nor optsGetter is used; they
// keep the signature of every resource's constructor.
func NewStorage(_ *runtime.Scheme, _ generic.RESTOptionsGetter, opts Options) (map[string]rest.Storage, error) {
	return map[string]rest.Storage{"componentstatuses": &REST{probes: opts.Probes, table: Table()}}, nil
}

// New returns an empty ComponentStatus.
func (r *REST) New() runtime.Object { return &corev1.ComponentStatus{} }

// NewList returns an empty ComponentStatusList.
func (r *REST) NewList() runtime.Object { return &corev1.ComponentStatusList{} }

// Destroy does nothing: there is no storage.
func (r *REST) Destroy() {}

// NamespaceScoped is false.
func (r *REST) NamespaceScoped() bool { return false }

// ShortNames are the aliases kubectl accepts.
func (r *REST) ShortNames() []string { return []string{"cs"} }

// GetSingularName is "componentstatus".
func (r *REST) GetSingularName() string { return "componentstatus" }

// Get probes one component.
func (r *REST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	warning.AddWarning(ctx, "", deprecationWarning)
	probe, ok := r.probes[name]
	if !ok {
		return nil, apierrors.NewNotFound(corev1.Resource("componentstatuses"), name)
	}
	return status(ctx, name, probe), nil
}

// List probes every component the selectors pick, sorted by name.
func (r *REST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	warning.AddWarning(ctx, "", deprecationWarning)
	labelSel, fieldSel := labels.Everything(), fields.Everything()
	if options != nil && options.LabelSelector != nil {
		labelSel = options.LabelSelector
	}
	if options != nil && options.FieldSelector != nil {
		fieldSel = options.FieldSelector
	}
	names := make([]string, 0, len(r.probes))
	for name := range r.probes {
		// Computed objects have no labels; only metadata.name selects.
		if labelSel.Matches(labels.Set{}) && fieldSel.Matches(fields.Set{"metadata.name": name}) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	list := &corev1.ComponentStatusList{Items: make([]corev1.ComponentStatus, len(names))}
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { list.Items[i] = *status(ctx, name, r.probes[name]) })
	}
	wg.Wait()
	return list, nil
}

// ConvertToTable prints NAME STATUS MESSAGE ERROR.
func (r *REST) ConvertToTable(ctx context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.table.ConvertToTable(ctx, object, tableOptions)
}

// probeTimeout bounds one probe, so a hung component does not hang the
// request.
const probeTimeout = 20 * time.Second

// status runs probe and reports it as upstream does: Healthy True with
// message "ok", or Healthy False with the error.
func status(ctx context.Context, name string, probe func(context.Context) error) *corev1.ComponentStatus {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cond := corev1.ComponentCondition{Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: "ok"}
	if err := probe(ctx); err != nil {
		cond = corev1.ComponentCondition{Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Error: err.Error()}
	}
	return &corev1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: name}, Conditions: []corev1.ComponentCondition{cond}}
}

// Table prints NAME STATUS MESSAGE ERROR: Healthy, Unhealthy or Unknown
// from the Healthy condition.
func Table() *printers.Table[*corev1.ComponentStatus] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Status", Type: "string", Description: "Status of the component conditions"},
		{Name: "Message", Type: "string", Description: "Message of the component conditions"},
		{Name: "Error", Type: "string", Description: "Error of the component conditions"},
	}
	return printers.New(columns, func(cs *corev1.ComponentStatus, _ time.Time) []any {
		status, message, errText := "Unknown", "", ""
		for _, c := range cs.Conditions {
			if c.Type != corev1.ComponentHealthy {
				continue
			}
			status = "Unhealthy"
			if c.Status == corev1.ConditionTrue {
				status = "Healthy"
			}
			message, errText = c.Message, c.Error
			break
		}
		return []any{cs.Name, status, message, errText}
	})
}
