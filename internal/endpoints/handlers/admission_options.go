package handlers

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
)

type requestOptionsKey struct{}

// withRequestOptions carries the request's options object (Create-,
// Update-, Patch- or DeleteOptions) to admission.
func withRequestOptions(ctx context.Context, opts runtime.Object) context.Context {
	return context.WithValue(ctx, requestOptionsKey{}, opts)
}

// optionsFor is the options object admission sees for op, as upstream
// sends it in AdmissionReview.request.options: the request's own options
// for a create, update or delete; an update that creates, and a patch,
// as upstream converts them (CreateOptions or UpdateOptions with the
// dry run, field manager and field validation). Without the request's
// options (a write from inside the server), only the dry run is known.
func optionsFor(ctx context.Context, op admission.Operation, dryRun bool) runtime.Object {
	req, _ := ctx.Value(requestOptionsKey{}).(runtime.Object)
	var dry []string
	if dryRun {
		dry = []string{metav1.DryRunAll}
	}
	common := func() (d []string, manager, validation string) {
		switch o := req.(type) {
		case *metav1.CreateOptions:
			return o.DryRun, o.FieldManager, o.FieldValidation
		case *metav1.UpdateOptions:
			return o.DryRun, o.FieldManager, o.FieldValidation
		case *metav1.PatchOptions:
			return o.DryRun, o.FieldManager, o.FieldValidation
		}
		return dry, "", ""
	}
	tm := func(kind string) metav1.TypeMeta {
		return metav1.TypeMeta{APIVersion: metav1.SchemeGroupVersion.String(), Kind: kind}
	}
	switch op {
	case admission.Create:
		if o, ok := req.(*metav1.CreateOptions); ok {
			out := o.DeepCopy()
			out.TypeMeta = tm("CreateOptions")
			return out
		}
		d, m, v := common()
		return &metav1.CreateOptions{TypeMeta: tm("CreateOptions"), DryRun: d, FieldManager: m, FieldValidation: v}
	case admission.Update:
		if o, ok := req.(*metav1.UpdateOptions); ok {
			out := o.DeepCopy()
			out.TypeMeta = tm("UpdateOptions")
			return out
		}
		d, m, v := common()
		return &metav1.UpdateOptions{TypeMeta: tm("UpdateOptions"), DryRun: d, FieldManager: m, FieldValidation: v}
	case admission.Delete:
		if o, ok := req.(*metav1.DeleteOptions); ok {
			out := o.DeepCopy()
			out.TypeMeta = tm("DeleteOptions")
			return out
		}
		return &metav1.DeleteOptions{TypeMeta: tm("DeleteOptions"), DryRun: dry}
	}
	return nil
}
