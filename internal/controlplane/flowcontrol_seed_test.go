package controlplane

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/bootstrap"
	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/ensurer"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
)

// TestSeededFlowControlLooksCreatedThroughTheAPI: the APF configuration
// a fresh server holds is what the config producer's creates leave:
// the same metadata, spec and managed fields (the producer's manager,
// operation Update). A copy created through the API with the producer's
// field manager is the reference; the create's answer is compared, as
// the next round of the producer deletes the copy.
func TestSeededFlowControlLooksCreatedThroughTheAPI(t *testing.T) {
	s := startServer(t, "memory", withoutControllers)
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := metav1.CreateOptions{FieldManager: ensurer.FieldManager}
	levels := cs.FlowcontrolV1().PriorityLevelConfigurations()
	for _, want := range append(bootstrap.MandatoryPriorityLevels(), bootstrap.SuggestedPriorityLevels()...) {
		if want.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt {
			continue // only the level named exempt may be Exempt: no copy
		}
		seeded, err := levels.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := want.DeepCopy()
		ref.Name = "copy-of-" + want.Name
		created, err := levels.Create(ctx, ref, opts)
		if err != nil {
			t.Fatal(err)
		}
		compareSeeded(t, want.Name, &created.ObjectMeta, &seeded.ObjectMeta)
		if d := cmp.Diff(created.Spec, seeded.Spec); d != "" {
			t.Errorf("%s spec (-api +seeded):\n%s", want.Name, d)
		}
	}
	schemas := cs.FlowcontrolV1().FlowSchemas()
	for _, want := range append(bootstrap.MandatoryFlowSchemas(), bootstrap.SuggestedFlowSchemas()...) {
		if want.Name == flowcontrolv1.FlowSchemaNameExempt {
			continue // only the schema named exempt may have precedence 1
		}
		seeded, err := schemas.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := want.DeepCopy()
		ref.Name = "copy-of-" + want.Name
		created, err := schemas.Create(ctx, ref, opts)
		if err != nil {
			t.Fatal(err)
		}
		compareSeeded(t, want.Name, &created.ObjectMeta, &seeded.ObjectMeta)
		if d := cmp.Diff(created.Spec, seeded.Spec); d != "" {
			t.Errorf("%s spec (-api +seeded):\n%s", want.Name, d)
		}
	}
}

// compareSeeded compares what a create decides besides the spec: labels,
// annotations, generation and the Update entry of the managed fields
// (the status is the config consumer's, applied later).
func compareSeeded(t *testing.T, name string, created, seeded *metav1.ObjectMeta) {
	t.Helper()
	if d := cmp.Diff(created.Labels, seeded.Labels); d != "" {
		t.Errorf("%s labels (-api +seeded):\n%s", name, d)
	}
	if d := cmp.Diff(created.Annotations, seeded.Annotations); d != "" {
		t.Errorf("%s annotations (-api +seeded):\n%s", name, d)
	}
	if created.Generation != seeded.Generation {
		t.Errorf("%s generation %d, want %d", name, seeded.Generation, created.Generation)
	}
	if d := cmp.Diff(updateEntry(t, name, created), updateEntry(t, name, seeded)); d != "" {
		t.Errorf("%s managed fields (-api +seeded):\n%s", name, d)
	}
}

// updateEntry is the one managed-fields entry of operation Update,
// without its time.
func updateEntry(t *testing.T, name string, m *metav1.ObjectMeta) metav1.ManagedFieldsEntry {
	t.Helper()
	var found []metav1.ManagedFieldsEntry
	for _, e := range m.ManagedFields {
		if e.Operation == metav1.ManagedFieldsOperationUpdate {
			e.Time = nil
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: managed fields %+v, want one Update entry", name, m.ManagedFields)
	}
	return found[0]
}

// TestRestartedServerKeepsBootstrapChanges: on storage that already holds
// the bootstrap data (a restart on the same etcd) nothing is seeded; the
// hooks reconcile as upstream's, so a suggested level a user took over
// keeps the user's spec, and the policy is still complete.
func TestRestartedServerKeepsBootstrapChanges(t *testing.T) {
	etcd, err := embedded.StartWithOptions(context.Background(), embedded.Options{Dir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	onEtcd := func(c *Config) { c.StorageBackend, c.EtcdServers = "etcd3", etcd.Endpoints() }
	client := func(s *benchServer) kubernetes.Interface {
		cs, err := kubernetes.NewForConfig(s.restCfg)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	t.Run("fresh", func(t *testing.T) {
		setShares(t, client(startServer(t, "etcd3", withoutControllers, onEtcd)), "workload-low", "false", 7)
	})
	t.Run("restarted", func(t *testing.T) {
		logs := &lockedBuffer{}
		s := startServer(t, "etcd3", withoutControllers, onEtcd, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
		if strings.Contains(logs.String(), "reconciling it through the API") {
			t.Errorf("the seed failed instead of leaving the work to the hooks:\n%s", logs)
		}
		cs, ctx := client(s), context.Background()
		if n, err := shares(ctx, cs, "workload-low"); err != nil || n != 7 {
			t.Errorf("workload-low shares %d (%v), want the user's 7", n, err)
		}
		fss, err := cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
		if err != nil || len(fss.Items) != 11 {
			t.Fatalf("flow schemas: %v, %d", err, len(fss.Items))
		}
		admin, err := cs.RbacV1().ClusterRoles().Get(ctx, "admin", metav1.GetOptions{})
		if err != nil || len(admin.Rules) == 0 {
			t.Errorf("admin after the restart: %v, %d rules", err, len(admin.Rules))
		}
	})
}
