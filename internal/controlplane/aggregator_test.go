package controlplane

import (
	"context"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kapi-dev/kapi/internal/controllers/autoregister"
)

// waitAPIService polls until the APIService name exists (or, with gone,
// no longer does) and returns it.
func waitAPIService(t *testing.T, ctx context.Context, c apiregistrationclient.Interface, name string, gone bool) *apiregistrationv1.APIService {
	t.Helper()
	var got *apiregistrationv1.APIService
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := c.ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return gone, nil
		}
		got = s
		return err == nil && !gone, err
	})
	if err != nil {
		t.Fatalf("waiting for APIService %s (gone=%v): %v", name, gone, err)
	}
	return got
}

// TestLocalAPIServices pins the local APIServices kube-apiserver keeps:
// one per built-in group version with upstream's priorities, Available
// with reason Local, labelled automanaged=onstart; one per served CRD
// version (priorities 1000/100, automanaged=true), removed with the CRD.
// apiregistration.k8s.io itself is served by the aggregator and listed
// in discovery.
func TestLocalAPIServices(t *testing.T) {
	s := startServer(t, "memory", withoutControllers)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg := apiregistrationclient.NewForConfigOrDie(s.restCfg)

	apps := waitAPIService(t, ctx, reg, "v1.apps", false)
	if apps.Spec.Service != nil || apps.Spec.GroupPriorityMinimum != 17800 || apps.Spec.VersionPriority != 15 {
		t.Errorf("v1.apps spec %+v, want local 17800/15", apps.Spec)
	}
	if apps.Labels[autoregister.ManagedLabel] != "onstart" {
		t.Errorf("v1.apps labels %v, want automanaged onstart", apps.Labels)
	}
	c := v1helper.GetAPIServiceConditionByType(apps, apiregistrationv1.Available)
	if c == nil || c.Status != apiregistrationv1.ConditionTrue || c.Reason != "Local" || c.Message != "Local APIServices are always available" {
		t.Errorf("v1.apps Available condition %+v", c)
	}
	core := waitAPIService(t, ctx, reg, "v1.", false)
	if core.Spec.GroupPriorityMinimum != 18000 || core.Spec.VersionPriority != 1 {
		t.Errorf("v1. spec %+v, want 18000/1", core.Spec)
	}

	groups, err := kubernetes.NewForConfigOrDie(s.restCfg).Discovery().ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range groups.Groups {
		found = found || g.Name == apiregistrationv1.GroupName
	}
	if !found {
		t.Errorf("discovery lacks %s", apiregistrationv1.GroupName)
	}

	ext := apiextensionsclient.NewForConfigOrDie(s.restCfg)
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, protobufCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crd := waitAPIService(t, ctx, reg, "v1.proto.example.com", false)
	if crd.Spec.GroupPriorityMinimum != 1000 || crd.Spec.VersionPriority != 100 || crd.Labels[autoregister.ManagedLabel] != "true" {
		t.Errorf("CRD APIService spec %+v labels %v", crd.Spec, crd.Labels)
	}
	if err := ext.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, protobufCRD().Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAPIService(t, ctx, reg, "v1.proto.example.com", true)
}
