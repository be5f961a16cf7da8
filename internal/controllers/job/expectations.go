package job

import (
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

var jobKind = batchv1.SchemeGroupVersion.WithKind("Job")

// expectations are, per Job key, the Pod creations and deletions the
// informer has still to show (counted, as upstream's
// ControllerExpectations) and the Pods whose finalizer removal it has
// still to show (upstream's finalizer expectations, Job-only).
type expectations struct {
	*podcontrol.Expectations
	mu   sync.Mutex
	fins map[string]sets.Set[types.UID]
}

func newExpectations(clk clock.PassiveClock) *expectations {
	return &expectations{Expectations: podcontrol.NewExpectations(clk), fins: map[string]sets.Set[types.UID]{}}
}

func (e *expectations) expectFinalizersRemoved(key string, uids []types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fins[key] == nil {
		e.fins[key] = sets.New[types.UID]()
	}
	e.fins[key].Insert(uids...)
}

func (e *expectations) finalizerRemovalObserved(key string, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := e.fins[key]; s != nil {
		s.Delete(uid)
		if s.Len() == 0 {
			delete(e.fins, key)
		}
	}
}

func (e *expectations) expectedFinalizerRemovals(key string) sets.Set[types.UID] {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fins[key].Clone()
}

// forget drops everything expected for key (its Job is gone).
func (e *expectations) forget(key string) {
	e.Delete(key)
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.fins, key)
}
