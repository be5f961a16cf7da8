// Package eventratelimit is the EventRateLimit admission plugin: event
// writes are limited by token buckets per server, namespace, user, or
// event source and object, as the plugin's configuration says; a request
// over a limit gets 429 Too Many Requests.
package eventratelimit

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/lru"

	"github.com/kapi-dev/kapi/internal/admission"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "EventRateLimit"

const defaultCacheSize = 4096

// Plugin limits event writes.
type Plugin struct{ enforcers []*enforcer }

var _ admission.ValidationInterface = (*Plugin)(nil)

// enforcer is one limit: its buckets and what keys them.
type enforcer struct {
	typ     LimitType
	single  flowcontrol.RateLimiter
	buckets *lru.Cache
	newFunc func() flowcontrol.RateLimiter
	key     func(*admission.Attributes) string
}

// New builds the plugin from a validated configuration; clock drives the
// buckets.
func New(c *Configuration, clock flowcontrol.Clock) *Plugin {
	p := &Plugin{}
	for _, l := range c.Limits {
		l := l
		e := &enforcer{typ: l.Type, newFunc: func() flowcontrol.RateLimiter {
			return flowcontrol.NewTokenBucketRateLimiterWithClock(float32(l.QPS), int(l.Burst), clock)
		}}
		switch l.Type {
		case ServerLimitType:
			e.single = e.newFunc()
			e.key = func(*admission.Attributes) string { return "" }
		case NamespaceLimitType:
			e.key = func(a *admission.Attributes) string { return a.Namespace }
		case UserLimitType:
			e.key = func(a *admission.Attributes) string {
				if a.UserInfo == nil {
					return ""
				}
				return a.UserInfo.GetName()
			}
		case SourceAndObjectLimitType:
			e.key = sourceAndObjectKey
		}
		if e.single == nil {
			size := int(l.CacheSize)
			if size == 0 {
				size = defaultCacheSize
			}
			e.buckets = lru.New(size)
		}
		p.enforcers = append(p.enforcers, e)
	}
	return p
}

// Validate takes a token from every limit's bucket for an event create
// or update; dry runs are free. Each refusal is a 429 and so is their
// aggregate, so the message says "Too many requests" twice, as
// upstream's does.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if a.Kind.Group != "" || a.Kind.Kind != "Event" || a.DryRun {
		return nil
	}
	var errs []error
	for _, e := range p.enforcers {
		if err := e.accept(a); err != nil {
			errs = append(errs, err)
		}
	}
	if err := utilerrors.NewAggregate(errs); err != nil {
		return apierrors.NewTooManyRequestsError(err.Error())
	}
	return nil
}

func (e *enforcer) accept(a *admission.Attributes) error {
	key := e.key(a)
	rl := e.single
	if rl == nil {
		if v, ok := e.buckets.Get(key); ok {
			rl = v.(flowcontrol.RateLimiter)
		} else {
			rl = e.newFunc()
			e.buckets.Add(key, rl)
		}
	}
	if !rl.TryAccept() {
		return apierrors.NewTooManyRequestsError(fmt.Sprintf("limit reached on type %v for key %v", e.typ, key))
	}
	return nil
}

// sourceAndObjectKey joins the event's source and involved object.
func sourceAndObjectKey(a *admission.Attributes) string {
	ev, ok := a.Object.(*corev1.Event)
	if !ok {
		return ""
	}
	o := ev.InvolvedObject
	return strings.Join([]string{ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion}, "")
}
