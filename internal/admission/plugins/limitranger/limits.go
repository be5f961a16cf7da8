package limitranger

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	resourcehelper "k8s.io/component-helpers/resource"
)

// defaultPod fills the requests and limits the Container ranges default
// and the containers leave out, and says what it set in the annotation.
func defaultPod(lr *corev1.LimitRange, pod *corev1.Pod) {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	for _, l := range lr.Spec.Limits {
		if l.Type != corev1.LimitTypeContainer {
			continue
		}
		for k, v := range l.DefaultRequest {
			requests[k] = v.DeepCopy()
		}
		for k, v := range l.Default {
			limits[k] = v.DeepCopy()
		}
	}
	var notes []string
	for i := range pod.Spec.Containers {
		notes = defaultContainer(&pod.Spec.Containers[i], requests, limits, "container", notes)
	}
	for i := range pod.Spec.InitContainers {
		notes = defaultContainer(&pod.Spec.InitContainers[i], requests, limits, "init container", notes)
	}
	if len(notes) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[Annotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	}
}

func defaultContainer(c *corev1.Container, requests, limits corev1.ResourceList, kind string, notes []string) []string {
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	fill := func(have, defaults corev1.ResourceList) []string {
		var set []string
		for k, v := range defaults {
			if _, ok := have[k]; !ok {
				have[k] = v.DeepCopy()
				set = append(set, string(k))
			}
		}
		sort.Strings(set)
		return set
	}
	setLimits := fill(c.Resources.Limits, limits)
	setRequests := fill(c.Resources.Requests, requests)
	if len(setRequests) > 0 {
		notes = append(notes, strings.Join(setRequests, ", ")+fmt.Sprintf(" request for %s %s", kind, c.Name))
	}
	if len(setLimits) > 0 {
		notes = append(notes, strings.Join(setLimits, ", ")+fmt.Sprintf(" limit for %s %s", kind, c.Name))
	}
	return notes
}

// validatePod checks every container against Container ranges and the
// pod's effective requests and limits against Pod ranges.
func validatePod(lr *corev1.LimitRange, pod *corev1.Pod) error {
	var errs []error
	for _, l := range lr.Spec.Limits {
		switch l.Type {
		case corev1.LimitTypeContainer:
			for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for _, c := range cs {
					errs = append(errs, checkLimit(l, c.Resources.Requests, c.Resources.Limits)...)
				}
			}
		case corev1.LimitTypePod:
			// upstream leaves the RuntimeClass overhead out of the pod's totals
			opts := resourcehelper.PodResourcesOptions{ExcludeOverhead: true}
			errs = append(errs, checkLimit(l, resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts))...)
		}
	}
	return utilerrors.NewAggregate(errs)
}

func checkLimit(l corev1.LimitRangeItem, requests, limits corev1.ResourceList) []error {
	var errs []error
	kind := string(l.Type)
	for k, v := range l.Min {
		errs = appendErr(errs, minConstraint(kind, k, v, requests, limits))
	}
	for k, v := range l.Max {
		errs = appendErr(errs, maxConstraint(kind, k, v, requests, limits))
	}
	for k, v := range l.MaxLimitRequestRatio {
		errs = appendErr(errs, ratioConstraint(kind, k, v, requests, limits))
	}
	return errs
}

// validateClaim bounds a claim's storage request; claims get no defaults.
func validateClaim(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) error {
	var errs []error
	for _, l := range lr.Spec.Limits {
		if l.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		for k, v := range l.Min {
			errs = appendErr(errs, minConstraint(string(l.Type), k, v, pvc.Spec.Resources.Requests, corev1.ResourceList{}))
		}
		for k, v := range l.Max {
			errs = appendErr(errs, maxRequestConstraint(string(l.Type), k, v, pvc.Spec.Resources.Requests))
		}
	}
	return utilerrors.NewAggregate(errs)
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// values compares at milli precision when nothing overflows, as upstream.
func values(request, limit, enforced resource.Quantity) (int64, int64, int64) {
	r, l, e := request.Value(), limit.Value(), enforced.Value()
	if r <= resource.MaxMilliValue && l <= resource.MaxMilliValue && e <= resource.MaxMilliValue {
		return request.MilliValue(), limit.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

func minConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := values(req, lim, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, kind, enforced.String())
	case r < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	case hasLim && l < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, kind, enforced.String(), lim.String())
	}
	return nil
}

func maxRequestConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[name]
	r, _, e := values(req, resource.Quantity{}, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, kind, enforced.String())
	case r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	}
	return nil
}

func maxConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := values(req, lim, enforced)
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, kind, enforced.String())
	case l > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, kind, enforced.String(), lim.String())
	case hasReq && r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	}
	return nil
}

func ratioConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, _ := values(req, lim, enforced)
	if !hasReq || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, kind, enforced.String())
	}
	if !hasLim || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, kind, enforced.String())
	}
	ratio := float64(l) / float64(r)
	shown, limit := ratio, float64(enforced.Value())
	if enforced.Value() <= resource.MaxMilliValue {
		ratio, limit = ratio*1000, float64(enforced.MilliValue())
	}
	if ratio > limit {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, kind, enforced.String(), shown)
	}
	return nil
}
