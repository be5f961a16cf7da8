package controlplane

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kapi-dev/kapi/internal/controllers/autoregister"
)

// TestSeededAPIServicesLookCreatedThroughTheAPI: the local APIServices a
// fresh server holds are what the autoregistration hook's creates leave,
// Available: for each, a copy created through the API by the hook's user
// agent (under another group, as the name must be version.group) has the
// same labels, spec and managed fields, and the same condition.
func TestSeededAPIServicesLookCreatedThroughTheAPI(t *testing.T) {
	s := startServer(t, "memory", withoutControllers)
	cfg := rest.CopyConfig(s.restCfg)
	cfg.UserAgent = autoregisterUserAgent
	client := apiregistrationclient.NewForConfigOrDie(cfg).ApiregistrationV1().APIServices()
	ctx := context.Background()
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seeded := 0
	for i := range list.Items {
		got := &list.Items[i]
		if got.Labels[autoregister.ManagedLabel] != "onstart" || got.Spec.Group == "" {
			continue // the core group's copy would need the same empty group
		}
		seeded++
		ref := got.DeepCopy()
		ref.ObjectMeta = metav1.ObjectMeta{Labels: got.Labels}
		ref.Spec.Group = "copy-of." + got.Spec.Group
		ref.Name = ref.Spec.Version + "." + ref.Spec.Group
		ref.Status = apiregistrationv1.APIServiceStatus{}
		created, err := client.Create(ctx, ref, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(created.Labels, got.Labels); d != "" {
			t.Errorf("%s labels (-api +seeded):\n%s", got.Name, d)
		}
		wantSpec := created.Spec
		wantSpec.Group = got.Spec.Group
		if d := cmp.Diff(wantSpec, got.Spec); d != "" {
			t.Errorf("%s spec (-api +seeded):\n%s", got.Name, d)
		}
		ignoreTime := cmpopts.IgnoreFields(apiregistrationv1.APIServiceCondition{}, "LastTransitionTime")
		if d := cmp.Diff(created.Status, got.Status, ignoreTime); d != "" {
			t.Errorf("%s status (-api +seeded):\n%s", got.Name, d)
		}
		if d := cmp.Diff(updateEntry(t, created.Name, &created.ObjectMeta), updateEntry(t, got.Name, &got.ObjectMeta)); d != "" {
			t.Errorf("%s managed fields (-api +seeded):\n%s", got.Name, d)
		}
	}
	if seeded < 20 {
		t.Errorf("%d seeded APIServices of built-in groups, want one per built-in group version", seeded)
	}
}
