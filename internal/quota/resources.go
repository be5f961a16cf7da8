// Package quota measures what objects consume against a ResourceQuota:
// resource-list arithmetic, one evaluator per kind that counts more than
// objects (pods, services, persistent volume claims), object counts for
// every other resource (`count/<resource>.<group>`), and the scopes of
// quotas. The ResourceQuota admission plugin and the resource quota
// controller share it, as upstream's plugin and controller share
// pkg/quota.
package quota

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Add returns a+b for every name in either.
func Add(a, b corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(a)+len(b))
	for k, v := range a {
		q := v.DeepCopy()
		if other, ok := b[k]; ok {
			q.Add(other)
		}
		out[k] = q
	}
	for k, v := range b {
		if _, ok := out[k]; !ok {
			out[k] = v.DeepCopy()
		}
	}
	return out
}

// SubtractWithNonNegativeResult returns a-b, never below zero, for the
// names of a, and zero for names only b has.
func SubtractWithNonNegativeResult(a, b corev1.ResourceList) corev1.ResourceList {
	zero := resource.MustParse("0")
	out := make(corev1.ResourceList, len(a))
	for k, v := range a {
		q := v.DeepCopy()
		if other, ok := b[k]; ok {
			q.Sub(other)
		}
		if q.Cmp(zero) < 0 {
			q = zero.DeepCopy()
		}
		out[k] = q
	}
	for k := range b {
		if _, ok := out[k]; !ok {
			out[k] = zero.DeepCopy()
		}
	}
	return out
}

// Equals reports whether a and b hold the same names with equal values.
func Equals(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		other, ok := b[k]
		if !ok || v.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

// LessThanOrEqual reports whether every value of a is at most b's value of
// the same name (names b lacks are not limited), and which names exceed.
func LessThanOrEqual(a, b corev1.ResourceList) (bool, []corev1.ResourceName) {
	var exceeded []corev1.ResourceName
	for k, v := range a {
		if limit, ok := b[k]; ok && v.Cmp(limit) > 0 {
			exceeded = append(exceeded, k)
		}
	}
	return len(exceeded) == 0, exceeded
}

// Mask keeps the entries of names only.
func Mask(list corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, n := range names {
		if v, ok := list[n]; ok {
			out[n] = v.DeepCopy()
		}
	}
	return out
}

// ResourceNames lists the names of list.
func ResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(list))
	for k := range list {
		out = append(out, k)
	}
	return out
}

// Contains reports whether names holds name.
func Contains(names []corev1.ResourceName, name corev1.ResourceName) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Intersection lists the names of a that b holds too.
func Intersection(a, b []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, n := range a {
		if Contains(b, n) && !Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Difference lists the names of a that b does not hold.
func Difference(a, b []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, n := range a {
		if !Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

// RemoveZeros drops the zero entries.
func RemoveZeros(list corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range list {
		if !v.IsZero() {
			out[k] = v
		}
	}
	return out
}

// IsNegative lists the names whose value is below zero.
func IsNegative(list corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for k, v := range list {
		if v.Sign() < 0 {
			out = append(out, k)
		}
	}
	return out
}

// PrettyPrint renders list as upstream's quota messages do:
// `name=value` sorted by name, comma separated.
func PrettyPrint(list corev1.ResourceList) string {
	keys := make([]string, 0, len(list))
	for k := range list {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := list[corev1.ResourceName(k)]
		parts = append(parts, k+"="+v.String())
	}
	return strings.Join(parts, ",")
}

// PrettyPrintNames renders names sorted, comma separated.
func PrettyPrintNames(names []corev1.ResourceName) string {
	s := make([]string, 0, len(names))
	for _, n := range names {
		s = append(s, string(n))
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}
