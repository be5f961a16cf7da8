package webhook

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	admissionregistrationv1informers "k8s.io/client-go/informers/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

// Validating is the ValidatingAdmissionWebhook plugin: matching webhooks
// are called in parallel and any denial rejects the request.
type Validating struct{ dispatcher }

var _ admission.ValidationInterface = (*Validating)(nil)

// NewValidating reads ValidatingWebhookConfigurations from informer.
func NewValidating(informer admissionregistrationv1informers.ValidatingWebhookConfigurationInformer, o Options) (*Validating, error) {
	lister := informer.Lister()
	src, err := newSource(informer.Informer(), func() ([]*hook, error) {
		configs, err := lister.List(labels.Everything())
		if err != nil {
			return nil, err
		}
		sortByName(configs)
		var hooks []*hook
		for _, c := range configs {
			for i, w := range c.Webhooks {
				hooks = append(hooks, newHook(c.Name, i, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
					w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.MatchConditions))
			}
		}
		return hooks, nil
	})
	if err != nil {
		return nil, err
	}
	return &Validating{dispatcher{opts: o, source: src, plugin: ValidatingPluginName}}, nil
}

// Validate calls every matching webhook at once and returns the first
// error in webhook order.
func (p *Validating) Validate(ctx context.Context, a *admission.Attributes) error {
	hooks, err := p.hooks(ctx, a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	// The webhooks run at once: their wall time is what the request waits.
	defer trackWebhooks(ctx, time.Now())
	v := newVersioned(a, p.opts.Scheme)
	type call struct {
		index int
		hook  *hook
		p     *prepared
	}
	var calls []call
	for i, h := range hooks {
		pr, err := p.prepare(ctx, h, a, v)
		if err != nil {
			return err
		}
		if pr != nil {
			calls = append(calls, call{i, h, pr})
		}
	}
	if len(calls) == 0 {
		return nil
	}
	errs := make([]error, len(calls))
	if len(calls) == 1 {
		errs[0] = p.callOne(ctx, calls[0].index, calls[0].hook, calls[0].p)
	} else {
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Go(func() { errs[i] = p.callOne(ctx, c.index, c.hook, c.p) })
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *Validating) callOne(ctx context.Context, index int, h *hook, pr *prepared) (err error) {
	outcome := &callOutcome{start: time.Now()}
	defer func() {
		outcome.err = err
		p.observe(h, stepValidating, string(pr.req.Operation), outcome)
	}()
	resp, err := p.call(ctx, h, pr.req)
	if err != nil {
		outcome.callErr = err
		if h.ignoreFailures() {
			p.failedOpen(ctx, "validating", 0, index, h, err)
			return nil
		}
		return callFailed(err)
	}
	record(ctx, h, resp)
	if !resp.Allowed {
		outcome.denied = denied(h.name, resp.Result)
		return outcome.denied
	}
	return nil
}
