package job

import (
	"sort"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// unknownIndex marks a Pod without a valid completion index.
const unknownIndex = -1

// interval is a closed range of completion indexes.
type interval struct{ first, last int }

// intervals is a sorted, non-overlapping, non-adjacent set of indexes,
// printed as status.completedIndexes is: "1,3-5,7".
type intervals []interval

// parseIndexes reads an interval list, keeping only indexes below
// completions; a malformed element is skipped.
func parseIndexes(s string, completions int) intervals {
	var ixs []int
	if s == "" {
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		first, last, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(first)
		if err != nil || a < 0 {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(last); err != nil || b < a {
				continue
			}
		}
		for i := a; i <= b && i < completions; i++ {
			ixs = append(ixs, i)
		}
	}
	return intervals(nil).with(ixs)
}

// with returns the set plus ixs.
func (iv intervals) with(ixs []int) intervals {
	if len(ixs) == 0 {
		return iv
	}
	all := make([]int, 0, iv.total()+len(ixs))
	for _, r := range iv {
		for i := r.first; i <= r.last; i++ {
			all = append(all, i)
		}
	}
	all = append(all, ixs...)
	sort.Ints(all)
	var out intervals
	for _, i := range all {
		if n := len(out); n > 0 && i <= out[n-1].last+1 {
			out[n-1].last = max(out[n-1].last, i)
			continue
		}
		out = append(out, interval{i, i})
	}
	return out
}

func (iv intervals) total() int {
	n := 0
	for _, r := range iv {
		n += r.last - r.first + 1
	}
	return n
}

func (iv intervals) has(i int) bool {
	k := sort.Search(len(iv), func(k int) bool { return iv[k].last >= i })
	return k < len(iv) && iv[k].first <= i
}

func (iv intervals) String() string {
	var b strings.Builder
	for k, r := range iv {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.first))
		if r.last > r.first {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r.last))
		}
	}
	return b.String()
}

// overlap counts the indexes iv and other share.
func (iv intervals) overlap(other intervals) int {
	n := 0
	for _, a := range iv {
		for _, b := range other {
			if o := min(a.last, b.last) - max(a.first, b.first) + 1; o > 0 {
				n += o
			}
		}
	}
	return n
}

func isIndexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
}

// completionIndex is the Pod's index from its annotation (the label is a
// copy), or unknownIndex.
func completionIndex(pod *corev1.Pod) int {
	v, ok := pod.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return unknownIndex
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return unknownIndex
	}
	return i
}

// validIndex: the Pod has an index inside the Job's completions.
func validIndex(job *batchv1.Job, pod *corev1.Pod) bool {
	i := completionIndex(pod)
	return i != unknownIndex && i < int(*job.Spec.Completions)
}

// pendingIndexes are the first n indexes neither succeeded, failed nor
// held by an active Pod.
func pendingIndexes(job *batchv1.Job, active []*corev1.Pod, succeeded, failed intervals, n int) []int {
	taken := map[int]bool{}
	for _, p := range active {
		taken[completionIndex(p)] = true
	}
	var out []int
	for i := 0; i < int(*job.Spec.Completions) && len(out) < n; i++ {
		if !taken[i] && !succeeded.has(i) && !failed.has(i) {
			out = append(out, i)
		}
	}
	return out
}

// duplicateIndexPods are active Pods to remove because another active Pod
// holds the same index, or their index is invalid.
func duplicateIndexPods(job *batchv1.Job, active []*corev1.Pod) (rm, keep []*corev1.Pod) {
	seen := map[int]bool{}
	sorted := append([]*corev1.Pod(nil), active...)
	sort.SliceStable(sorted, func(a, b int) bool { return completionIndex(sorted[a]) < completionIndex(sorted[b]) })
	for _, p := range sorted {
		i := completionIndex(p)
		if !validIndex(job, p) || seen[i] {
			rm = append(rm, p)
			continue
		}
		seen[i] = true
		keep = append(keep, p)
	}
	return rm, keep
}
