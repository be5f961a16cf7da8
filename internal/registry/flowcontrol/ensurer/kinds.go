package ensurer

import (
	"context"
	"fmt"
	"log/slog"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	flowcontrolclient "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	flowcontrollisters "k8s.io/client-go/listers/flowcontrol/v1"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/bootstrap"
)

// Ensurer reconciles the mandatory and suggested configuration once per
// Ensure call. Reads come from listers (the shared informers), writes go
// through the API so they are validated, admitted and audited.
type Ensurer struct {
	pl     ops[*flowcontrolv1.PriorityLevelConfiguration]
	fs     ops[*flowcontrolv1.FlowSchema]
	logger *slog.Logger
}

// New builds an Ensurer.
func New(client flowcontrolclient.FlowcontrolV1Interface, pls flowcontrollisters.PriorityLevelConfigurationLister, fss flowcontrollisters.FlowSchemaLister, logger *slog.Logger) *Ensurer {
	plc := client.PriorityLevelConfigurations()
	fsc := client.FlowSchemas()
	create := metav1.CreateOptions{FieldManager: FieldManager}
	update := metav1.UpdateOptions{FieldManager: FieldManager}
	return &Ensurer{
		logger: logger,
		pl: ops[*flowcontrolv1.PriorityLevelConfiguration]{
			kind: "PriorityLevelConfiguration",
			get:  pls.Get,
			list: func() ([]*flowcontrolv1.PriorityLevelConfiguration, error) { return pls.List(labels.Everything()) },
			create: func(ctx context.Context, o *flowcontrolv1.PriorityLevelConfiguration) error {
				_, err := plc.Create(ctx, o, create)
				return err
			},
			update: func(ctx context.Context, o *flowcontrolv1.PriorityLevelConfiguration) error {
				_, err := plc.Update(ctx, o, update)
				return err
			},
			delete:      func(ctx context.Context, name string) error { return plc.Delete(ctx, name, metav1.DeleteOptions{}) },
			deepCopy:    (*flowcontrolv1.PriorityLevelConfiguration).DeepCopy,
			specDiffers: levelSpecDiffers,
			replaceSpec: func(have, want *flowcontrolv1.PriorityLevelConfiguration) { have.Spec = *want.Spec.DeepCopy() },
		},
		fs: ops[*flowcontrolv1.FlowSchema]{
			kind: "FlowSchema",
			get:  fss.Get,
			list: func() ([]*flowcontrolv1.FlowSchema, error) { return fss.List(labels.Everything()) },
			create: func(ctx context.Context, o *flowcontrolv1.FlowSchema) error {
				_, err := fsc.Create(ctx, o, create)
				return err
			},
			update: func(ctx context.Context, o *flowcontrolv1.FlowSchema) error {
				_, err := fsc.Update(ctx, o, update)
				return err
			},
			delete:   func(ctx context.Context, name string) error { return fsc.Delete(ctx, name, metav1.DeleteOptions{}) },
			deepCopy: (*flowcontrolv1.FlowSchema).DeepCopy,
			specDiffers: func(want, have *flowcontrolv1.FlowSchema) bool {
				return !equality.Semantic.DeepEqual(want.Spec, have.Spec)
			},
			replaceSpec: func(have, want *flowcontrolv1.FlowSchema) { have.Spec = *want.Spec.DeepCopy() },
		},
	}
}

// levelSpecDiffers compares specs; the exempt level's shares and lendable
// percent are the operator's to tune (upstream leaves them alone too).
func levelSpecDiffers(want, have *flowcontrolv1.PriorityLevelConfiguration) bool {
	w := want.Spec.DeepCopy()
	if want.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt && w.Exempt != nil {
		if have.Spec.Exempt == nil {
			return true
		}
		w.Exempt.NominalConcurrencyShares = have.Spec.Exempt.NominalConcurrencyShares
		w.Exempt.LendablePercent = have.Spec.Exempt.LendablePercent
	}
	return !equality.Semantic.DeepEqual(*w, have.Spec)
}

// Ensure runs one round in upstream's order: suggested objects, then
// mandatory ones (which win if a name were in both), then the removal of
// objects no longer suggested.
func (e *Ensurer) Ensure(ctx context.Context) error {
	suggestedPLs, mandatoryPLs := bootstrap.SuggestedPriorityLevels(), bootstrap.MandatoryPriorityLevels()
	suggestedFSs, mandatoryFSs := bootstrap.SuggestedFlowSchemas(), bootstrap.MandatoryFlowSchemas()
	if err := ensureAll(ctx, e.pl, suggestedPLs, false, e.logger); err != nil {
		return fmt.Errorf("suggested configuration: %w", err)
	}
	if err := ensureAll(ctx, e.fs, suggestedFSs, false, e.logger); err != nil {
		return fmt.Errorf("suggested configuration: %w", err)
	}
	if err := ensureAll(ctx, e.pl, mandatoryPLs, true, e.logger); err != nil {
		return fmt.Errorf("mandatory configuration: %w", err)
	}
	if err := ensureAll(ctx, e.fs, mandatoryFSs, true, e.logger); err != nil {
		return fmt.Errorf("mandatory configuration: %w", err)
	}
	if err := removeUnwanted(ctx, e.fs, namesOf(suggestedFSs, mandatoryFSs), e.logger); err != nil {
		return err
	}
	return removeUnwanted(ctx, e.pl, namesOf(suggestedPLs, mandatoryPLs), e.logger)
}
