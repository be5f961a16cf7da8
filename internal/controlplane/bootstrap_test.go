package controlplane

import (
	"context"
	"net/netip"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// TestDefaultServiceCIDRBeforeReady: as upstream, the default ServiceCIDR
// exists once the server is ready (Service IPs are allocated from it);
// the kubernetes Service, which upstream writes after /readyz passes,
// follows with the first IP of the range.
func TestDefaultServiceCIDRBeforeReady(t *testing.T) {
	s := startServer(t, "memory", withoutControllers)
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cidr, err := cs.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the default ServiceCIDR at ready: %v", err)
	}
	if len(cidr.Spec.CIDRs) == 0 {
		t.Fatalf("the default ServiceCIDR has no ranges: %+v", cidr.Spec)
	}
	// On fresh storage the seed wrote it (and its status) before the
	// server served; either way it is Ready at ready.
	if c := meta.FindStatusCondition(cidr.Status.Conditions, networkingv1.ServiceCIDRConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("the default ServiceCIDR's Ready condition at ready: %+v", cidr.Status.Conditions)
	}
	prefix, err := netip.ParsePrefix(cidr.Spec.CIDRs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := prefix.Masked().Addr().Next().String()
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		svc, err := cs.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if svc.Spec.ClusterIP != want {
			t.Errorf("the kubernetes service's cluster IP is %s, want %s", svc.Spec.ClusterIP, want)
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for the kubernetes service: %v", err)
	}
}
