package resourcequota

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/quota"
)

// fakeAccess holds quotas in memory; conflicts makes that many status
// writes fail with a 409 after bumping the stored quota's used by bump.
type fakeAccess struct {
	quotas    map[string]*corev1.ResourceQuota
	writes    int
	conflicts int
	bump      corev1.ResourceList
}

func (f *fakeAccess) GetQuotas(_ context.Context, ns string) ([]corev1.ResourceQuota, error) {
	var out []corev1.ResourceQuota
	for _, q := range f.quotas {
		if q.Namespace == ns {
			out = append(out, *q.DeepCopy())
		}
	}
	return out, nil
}

func (f *fakeAccess) GetQuota(_ context.Context, _, name string) (*corev1.ResourceQuota, error) {
	if q, ok := f.quotas[name]; ok {
		return q.DeepCopy(), nil
	}
	return nil, nil
}

func (f *fakeAccess) UpdateQuotaStatus(_ context.Context, q *corev1.ResourceQuota) error {
	if f.conflicts > 0 {
		f.conflicts--
		stored := f.quotas[q.Name]
		stored.Status.Used = quota.Add(stored.Status.Used, f.bump)
		return apierrors.NewConflict(schema.GroupResource{Resource: "resourcequotas"}, q.Name, nil)
	}
	f.writes++
	f.quotas[q.Name] = q.DeepCopy()
	return nil
}

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func rq(name string, hard, used corev1.ResourceList, mods ...func(*corev1.ResourceQuota)) *corev1.ResourceQuota {
	q := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ResourceVersion: "1"},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
		Status:     corev1.ResourceQuotaStatus{Hard: hard, Used: used},
	}
	for _, m := range mods {
		m(q)
	}
	return q
}

func pod(name string, mods ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func withRequests(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests = list(kv...) }
}

func attrs(op admission.Operation, res string, obj, old runtime.Object) *admission.Attributes {
	gvr := schema.ParseGroupResource(res).WithVersion("v1")
	a := &admission.Attributes{Namespace: "ns", Resource: gvr, Operation: op, Object: obj, OldObject: old}
	if m, ok := obj.(metav1.Object); ok {
		a.Name = m.GetName()
	}
	return a
}

func TestValidate(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}}
	widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}
	lbSvc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: "5"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}, {Port: 443}}}}
	ipSvc := lbSvc.DeepCopy()
	ipSvc.Spec.Type = corev1.ServiceTypeClusterIP
	gold := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("gold"),
			Resources: corev1.VolumeResourceRequirements{Requests: list("storage", "5Gi")}}}
	highPriority := func(p *corev1.Pod) { p.Spec.PriorityClassName = "high" }
	terminating := func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }

	tests := []struct {
		name    string
		quotas  []*corev1.ResourceQuota
		attrs   *admission.Attributes
		limited []LimitedResource
		message string
		// used is the status.used expected of each quota afterwards.
		used map[string]corev1.ResourceList
	}{
		{
			name:    "second configmap refused",
			quotas:  []*corev1.ResourceQuota{rq("q", list("configmaps", "1"), list("configmaps", "1"))},
			attrs:   attrs(admission.Create, "configmaps", cm, nil),
			message: `configmaps "b" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1`,
		},
		{
			name:   "configmap charged by legacy and count names",
			quotas: []*corev1.ResourceQuota{rq("q", list("configmaps", "2", "count/configmaps", "5"), list("configmaps", "1", "count/configmaps", "1"))},
			attrs:  attrs(admission.Create, "configmaps", cm, nil),
			used:   map[string]corev1.ResourceList{"q": list("configmaps", "2", "count/configmaps", "2")},
		},
		{
			name:    "status not yet computed",
			quotas:  []*corev1.ResourceQuota{rq("q", list("configmaps", "1"), nil)},
			attrs:   attrs(admission.Create, "configmaps", cm, nil),
			message: `configmaps "b" is forbidden: status unknown for quota: q, resources: configmaps`,
		},
		{
			name:   "custom resource counted",
			quotas: []*corev1.ResourceQuota{rq("q", list("count/widgets.example.com", "1"), list("count/widgets.example.com", "0"))},
			attrs:  attrs(admission.Create, "widgets.example.com", widget, nil),
			used:   map[string]corev1.ResourceList{"q": list("count/widgets.example.com", "1")},
		},
		{
			name:    "custom resource over its count",
			quotas:  []*corev1.ResourceQuota{rq("q", list("count/widgets.example.com", "1"), list("count/widgets.example.com", "1"))},
			attrs:   attrs(admission.Create, "widgets.example.com", widget, nil),
			message: `widgets.example.com "w" is forbidden: exceeded quota: q, requested: count/widgets.example.com=1, used: count/widgets.example.com=1, limited: count/widgets.example.com=1`,
		},
		{
			name:    "pod must request limited cpu",
			quotas:  []*corev1.ResourceQuota{rq("compute", list("requests.cpu", "1", "limits.memory", "1Gi"), list("requests.cpu", "0", "limits.memory", "0"))},
			attrs:   attrs(admission.Create, "pods", pod("p"), nil),
			message: `pods "p" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c`,
		},
		{
			name:    "pod over requests.cpu",
			quotas:  []*corev1.ResourceQuota{rq("compute", list("requests.cpu", "1", "pods", "10"), list("requests.cpu", "800m", "pods", "1"))},
			attrs:   attrs(admission.Create, "pods", pod("p", withRequests("cpu", "300m")), nil),
			message: `pods "p" is forbidden: exceeded quota: compute, requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1`,
		},
		{
			name:   "pod charged cpu, memory, pods and count",
			quotas: []*corev1.ResourceQuota{rq("compute", list("requests.cpu", "1", "requests.memory", "1Gi", "pods", "10", "count/pods", "10"), list("requests.cpu", "0", "requests.memory", "0", "pods", "0", "count/pods", "0"))},
			attrs:  attrs(admission.Create, "pods", pod("p", withRequests("cpu", "200m", "memory", "100Mi")), nil),
			used:   map[string]corev1.ResourceList{"compute": list("requests.cpu", "200m", "requests.memory", "100Mi", "pods", "1", "count/pods", "1")},
		},
		{
			name: "BestEffort quota ignores a burstable pod, NotBestEffort charges it",
			quotas: []*corev1.ResourceQuota{
				rq("be", list("pods", "0"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
				}),
				rq("nbe", list("pods", "1"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotBestEffort}
				}),
			},
			attrs: attrs(admission.Create, "pods", pod("p", withRequests("cpu", "1")), nil),
			used:  map[string]corev1.ResourceList{"be": list("pods", "0"), "nbe": list("pods", "1")},
		},
		{
			name: "BestEffort pod refused by a BestEffort quota",
			quotas: []*corev1.ResourceQuota{
				rq("be", list("pods", "0"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
				}),
			},
			attrs:   attrs(admission.Create, "pods", pod("p"), nil),
			message: `pods "p" is forbidden: exceeded quota: be, requested: pods=1, used: pods=0, limited: pods=0`,
		},
		{
			name: "Terminating quota only for pods with a deadline",
			quotas: []*corev1.ResourceQuota{
				rq("term", list("pods", "5"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating}
				}),
				rq("notterm", list("pods", "5"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating}
				}),
			},
			attrs: attrs(admission.Create, "pods", pod("p", terminating), nil),
			used:  map[string]corev1.ResourceList{"term": list("pods", "1"), "notterm": list("pods", "0")},
		},
		{
			name: "PriorityClass scope selector",
			quotas: []*corev1.ResourceQuota{
				rq("high", list("pods", "5"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.ScopeSelector = &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
						{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"high"}}}}
				}),
				rq("other", list("pods", "5"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.ScopeSelector = &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
						{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpNotIn, Values: []string{"high"}}}}
				}),
			},
			attrs: attrs(admission.Create, "pods", pod("p", highPriority), nil),
			used:  map[string]corev1.ResourceList{"high": list("pods", "1"), "other": list("pods", "0")},
		},
		{
			name: "CrossNamespacePodAffinity scope",
			quotas: []*corev1.ResourceQuota{
				rq("cross", list("pods", "0"), list("pods", "0"), func(q *corev1.ResourceQuota) {
					q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeCrossNamespacePodAffinity}
				}),
			},
			attrs: attrs(admission.Create, "pods", pod("p", func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
					{Namespaces: []string{"other"}, TopologyKey: "zone"}}}}
			}), nil),
			message: `pods "p" is forbidden: exceeded quota: cross, requested: pods=1, used: pods=0, limited: pods=0`,
		},
		{
			name:   "service turned LoadBalancer charged the difference",
			quotas: []*corev1.ResourceQuota{rq("svc", list("services", "5", "services.loadbalancers", "1", "services.nodeports", "4"), list("services", "1", "services.loadbalancers", "0", "services.nodeports", "0"))},
			attrs:  attrs(admission.Update, "services", lbSvc, ipSvc),
			used:   map[string]corev1.ResourceList{"svc": list("services", "1", "services.loadbalancers", "1", "services.nodeports", "2")},
		},
		{
			name:    "too many node ports",
			quotas:  []*corev1.ResourceQuota{rq("svc", list("services.nodeports", "1"), list("services.nodeports", "0"))},
			attrs:   attrs(admission.Create, "services", lbSvc, nil),
			message: `services "s" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1`,
		},
		{
			name:    "claim over its storage class's storage",
			quotas:  []*corev1.ResourceQuota{rq("st", list("requests.storage", "100Gi", "gold.storageclass.storage.k8s.io/requests.storage", "4Gi"), list("requests.storage", "0", "gold.storageclass.storage.k8s.io/requests.storage", "0"))},
			attrs:   attrs(admission.Create, "persistentvolumeclaims", gold, nil),
			message: `persistentvolumeclaims "c" is forbidden: exceeded quota: st, requested: gold.storageclass.storage.k8s.io/requests.storage=5Gi, used: gold.storageclass.storage.k8s.io/requests.storage=0, limited: gold.storageclass.storage.k8s.io/requests.storage=4Gi`,
		},
		{
			name:   "claim charged claims and storage per class",
			quotas: []*corev1.ResourceQuota{rq("st", list("persistentvolumeclaims", "3", "requests.storage", "100Gi", "gold.storageclass.storage.k8s.io/persistentvolumeclaims", "1"), list("persistentvolumeclaims", "0", "requests.storage", "0", "gold.storageclass.storage.k8s.io/persistentvolumeclaims", "0"))},
			attrs:  attrs(admission.Create, "persistentvolumeclaims", gold, nil),
			used:   map[string]corev1.ResourceList{"st": list("persistentvolumeclaims", "1", "requests.storage", "5Gi", "gold.storageclass.storage.k8s.io/persistentvolumeclaims", "1")},
		},
		{
			name:    "limited resource without a covering quota",
			attrs:   attrs(admission.Create, "persistentvolumeclaims", gold, nil),
			limited: []LimitedResource{{Resource: "persistentvolumeclaims", MatchContains: []string{".storageclass.storage.k8s.io/requests.storage"}}},
			message: `persistentvolumeclaims "c" is forbidden: insufficient quota to consume: gold.storageclass.storage.k8s.io/requests.storage`,
		},
		{
			name:    "limited scope without a covering quota",
			attrs:   attrs(admission.Create, "pods", pod("p", highPriority), nil),
			limited: []LimitedResource{{Resource: "pods", MatchScopes: []corev1.ScopedResourceSelectorRequirement{{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"high"}}}}},
			message: `insufficient quota to match these scopes: [{PriorityClass In [high]}]`,
		},
		{
			name:   "events are never quota-ed",
			quotas: []*corev1.ResourceQuota{rq("q", list("count/events", "0"), list("count/events", "0"))},
			attrs:  attrs(admission.Create, "events", &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}}, nil),
			used:   map[string]corev1.ResourceList{"q": list("count/events", "0")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			access := &fakeAccess{quotas: map[string]*corev1.ResourceQuota{}}
			for _, q := range tt.quotas {
				access.quotas[q.Name] = q
			}
			p := New(quota.NewRegistry(clocktesting.NewFakePassiveClock(metav1.Now().Time)), access, &Configuration{LimitedResources: tt.limited})
			err := p.Validate(context.Background(), tt.attrs)
			if tt.message != "" {
				if err == nil || err.Error() != tt.message {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.message)
				}
				if access.writes != 0 {
					t.Errorf("a refused request wrote %d quota statuses", access.writes)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			for name, want := range tt.used {
				if got := access.quotas[name].Status.Used; !quota.Equals(got, want) {
					t.Errorf("quota %s used = %v, want %v", name, got, want)
				}
			}
		})
	}
}

func TestForbiddenIs403(t *testing.T) {
	access := &fakeAccess{quotas: map[string]*corev1.ResourceQuota{"q": rq("q", list("configmaps", "0"), list("configmaps", "0"))}}
	p := New(quota.NewRegistry(clocktesting.NewFakePassiveClock(metav1.Now().Time)), access, nil)
	a := attrs(admission.Create, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, nil)
	err := p.Validate(context.Background(), a)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("got %v, want 403 Forbidden", err)
	}
	if want := `configmaps "gen-" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=0, limited: configmaps=0`; err.Error() != want {
		t.Errorf("got %q, want %q", err.Error(), want)
	}
}

func TestDryRunDoesNotCharge(t *testing.T) {
	access := &fakeAccess{quotas: map[string]*corev1.ResourceQuota{"q": rq("q", list("configmaps", "2"), list("configmaps", "0"))}}
	p := New(quota.NewRegistry(clocktesting.NewFakePassiveClock(metav1.Now().Time)), access, nil)
	a := attrs(admission.Create, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, nil)
	a.DryRun = true
	if err := p.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if access.writes != 0 {
		t.Errorf("dry run wrote %d statuses", access.writes)
	}
}

// TestConflictRetried: a status write that loses a race is retried
// against the fresh quota, which is charged on top of the other writer.
func TestConflictRetried(t *testing.T) {
	tests := []struct {
		name      string
		hard      string
		conflicts int
		wantErr   string
		wantUsed  string
	}{
		{name: "one conflict", hard: "5", conflicts: 1, wantUsed: "2"},
		{name: "fresh quota is full", hard: "1", conflicts: 1, wantErr: `configmaps "a" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1`},
		{name: "conflicts exhaust retries", hard: "50", conflicts: retries + 1, wantErr: `Operation cannot be fulfilled on resourcequotas "q"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			access := &fakeAccess{
				quotas:    map[string]*corev1.ResourceQuota{"q": rq("q", list("configmaps", tt.hard), list("configmaps", "0"))},
				conflicts: tt.conflicts, bump: list("configmaps", "1"),
			}
			p := New(quota.NewRegistry(clocktesting.NewFakePassiveClock(metav1.Now().Time)), access, nil)
			err := p.Validate(context.Background(), attrs(admission.Create, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, nil))
			if tt.wantErr != "" {
				if err == nil || len(err.Error()) < len(tt.wantErr) || err.Error()[:len(tt.wantErr)] != tt.wantErr {
					t.Fatalf("got %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := access.quotas["q"].Status.Used[corev1.ResourceConfigMaps]; got.String() != tt.wantUsed {
				t.Errorf("used = %s, want %s", got.String(), tt.wantUsed)
			}
		})
	}
}

func TestLoadConfiguration(t *testing.T) {
	tests := []struct {
		name, data, wantErr string
		limited             int
	}{
		{name: "empty", data: ""},
		{name: "v1", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: pods\n  matchContains: [requests.cpu]\n", limited: 1},
		{name: "v1beta1", data: "apiVersion: resourcequota.admission.k8s.io/v1beta1\nkind: Configuration\nlimitedResources: []\n"},
		{name: "missing resource", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- apiGroup: apps\n", wantErr: "limitedResources[0].resource: Required value"},
		{name: "wrong kind", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: Nope\n", wantErr: `no kind "Nope" is registered for version "apiserver.config.k8s.io/v1"`},
		{name: "unknown field", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nbogus: 1\n", wantErr: `error unmarshaling JSON: while decoding JSON: json: unknown field "bogus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfiguration([]byte(tt.data))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.LimitedResources) != tt.limited {
				t.Errorf("limited = %d, want %d", len(c.LimitedResources), tt.limited)
			}
		})
	}
}

// TestConcurrentCreatesNeverExceed: requests racing in one namespace are
// charged one after the other, so exactly hard of them are admitted.
func TestConcurrentCreatesNeverExceed(t *testing.T) {
	const hard, requests = 5, 40
	access := &fakeAccess{quotas: map[string]*corev1.ResourceQuota{"q": rq("q", list("configmaps", "5"), list("configmaps", "0"))}}
	p := New(quota.NewRegistry(clocktesting.NewFakePassiveClock(metav1.Now().Time)), access, nil)
	errs := make(chan error, requests)
	for i := range requests {
		go func() {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm" + string(rune('a'+i)), Namespace: "ns"}}
			errs <- p.Validate(context.Background(), attrs(admission.Create, "configmaps", cm, nil))
		}()
	}
	admitted := 0
	for range requests {
		if err := <-errs; err == nil {
			admitted++
		} else if !apierrors.IsForbidden(err) {
			t.Errorf("unexpected error: %v", err)
		}
	}
	if admitted != hard {
		t.Errorf("admitted %d, want %d", admitted, hard)
	}
}
