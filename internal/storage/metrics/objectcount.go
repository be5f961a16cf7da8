package metrics

import "k8s.io/apimachinery/pkg/runtime/schema"

func (m *Metrics) rememberCount(gr schema.GroupResource, count int64, err error) {
	if err != nil {
		m.counts.Delete(gr)
		return
	}
	m.counts.Store(gr, count)
}

// ObjectCount returns the number of stored objects of gr at the last
// successful count (refreshed every minute); false before the first one,
// after a failed one, or for a nil m.
func (m *Metrics) ObjectCount(gr schema.GroupResource) (int64, bool) {
	if m == nil {
		return 0, false
	}
	v, ok := m.counts.Load(gr)
	if !ok {
		return 0, false
	}
	return v.(int64), true
}
