// Package ensurer keeps the API Priority and Fairness bootstrap
// configuration in the cluster, as kube-apiserver's
// priority-and-fairness-config-producer does:
//
//   - a missing mandatory or suggested object is created;
//   - a mandatory object always gets its bootstrap spec back, and its
//     apf.kubernetes.io/autoupdate-spec annotation is set to "true";
//   - a suggested object gets its bootstrap spec back only while the
//     annotation is "true"; one without a parseable annotation is taken
//     as user-owned ("false") unless it was never changed (generation 1);
//   - an object the server no longer suggests is deleted if it carries
//     autoupdate-spec "true".
package ensurer

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/bootstrap"
)

// FieldManager is the manager of the writes, as upstream names it.
const FieldManager = "api-priority-and-fairness-config-producer-v1"

// object is one of the two configuration kinds.
type object interface {
	*flowcontrolv1.PriorityLevelConfiguration | *flowcontrolv1.FlowSchema
	metav1.Object
}

// ops are the kind-specific reads (from a lister) and writes (through
// the API) the generic reconciliation needs.
type ops[T object] struct {
	kind        string
	get         func(name string) (T, error)
	list        func() ([]T, error)
	create      func(ctx context.Context, obj T) error
	update      func(ctx context.Context, obj T) error
	delete      func(ctx context.Context, name string) error
	deepCopy    func(T) T
	specDiffers func(want, have T) bool
	replaceSpec func(have, want T) // sets have's spec to want's
}

// ensureAll creates or revises each wanted object; mandatory objects are
// always brought back to their bootstrap spec. The objects of one call
// are independent, so their round trips run concurrently: the first round
// is on the server's ready path, and one write after another made it the
// slowest post-start hook. The error of the first object (in wants'
// order) that failed is returned, after every write finished.
func ensureAll[T object](ctx context.Context, o ops[T], wants []T, mandatory bool, logger *slog.Logger) error {
	errs := make([]error, len(wants))
	var wg sync.WaitGroup
	for i, want := range wants {
		wg.Go(func() { errs[i] = ensureOne(ctx, o, want, mandatory, logger) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func ensureOne[T object](ctx context.Context, o ops[T], want T, mandatory bool, logger *slog.Logger) error {
	name := want.GetName()
	have, err := o.get(name)
	if apierrors.IsNotFound(err) {
		err = o.create(ctx, o.deepCopy(want))
		if err == nil {
			logger.Debug("created APF configuration object", "kind", o.kind, "name", name)
			return nil
		}
		if apierrors.IsAlreadyExists(err) {
			return nil // created concurrently; the next round revises it
		}
		return fmt.Errorf("creating %s %q: %w", o.kind, name, err)
	}
	if err != nil {
		return fmt.Errorf("getting %s %q: %w", o.kind, name, err)
	}
	revised, changed := revise(o, have, want, mandatory)
	if !changed {
		return nil
	}
	err = o.update(ctx, revised)
	switch {
	case err == nil:
		logger.Debug("updated APF configuration object", "kind", o.kind, "name", name)
		return nil
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		return nil // changed or deleted meanwhile; the next round looks again
	default:
		return fmt.Errorf("updating %s %q: %w", o.kind, name, err)
	}
}

// revise returns the updated copy of have and true, or false when have is
// up to date. have is shared (a lister's) and never modified.
func revise[T object](o ops[T], have, want T, mandatory bool) (T, bool) {
	autoUpdate := mandatory || wantsAutoUpdate(have)
	fixAnnotation := !annotationIs(have, autoUpdate)
	fixSpec := autoUpdate && o.specDiffers(want, have)
	if !fixAnnotation && !fixSpec {
		var zero T
		return zero, false
	}
	out := o.deepCopy(have)
	if fixSpec {
		o.replaceSpec(out, want)
	}
	if fixAnnotation {
		ann := out.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[bootstrap.AutoUpdateAnnotation] = strconv.FormatBool(autoUpdate)
		out.SetAnnotations(ann)
	}
	return out, true
}

// wantsAutoUpdate reads the annotation; without a boolean value an object
// is kept up to date only if nobody changed its spec since creation.
func wantsAutoUpdate(obj metav1.Object) bool {
	if v, err := strconv.ParseBool(obj.GetAnnotations()[bootstrap.AutoUpdateAnnotation]); err == nil {
		return v
	}
	return obj.GetGeneration() == 1
}

// annotationIs tells whether the annotation already holds want.
func annotationIs(obj metav1.Object, want bool) bool {
	v, ok := obj.GetAnnotations()[bootstrap.AutoUpdateAnnotation]
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err == nil && b == want
}

// removeUnwanted deletes the objects not in wanted whose annotation is
// "true": ones an older server suggested. Objects without the annotation
// or with "false" belong to users.
func removeUnwanted[T object](ctx context.Context, o ops[T], wanted sets.Set[string], logger *slog.Logger) error {
	all, err := o.list()
	if err != nil {
		return fmt.Errorf("listing %s: %w", o.kind, err)
	}
	for _, obj := range all {
		name := obj.GetName()
		if wanted.Has(name) {
			continue
		}
		v, ok := obj.GetAnnotations()[bootstrap.AutoUpdateAnnotation]
		if !ok {
			continue
		}
		if auto, err := strconv.ParseBool(v); err != nil || !auto {
			continue
		}
		if err := o.delete(ctx, name); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting unwanted %s %q: %w", o.kind, name, err)
		}
		logger.Debug("deleted APF configuration object no longer suggested", "kind", o.kind, "name", name)
	}
	return nil
}

func namesOf[T object](lists ...[]T) sets.Set[string] {
	s := sets.New[string]()
	for _, l := range lists {
		for _, o := range l {
			s.Insert(o.GetName())
		}
	}
	return s
}
