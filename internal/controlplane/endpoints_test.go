package controlplane

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// endpointsEnv drives Pods' status as a kubelet would.
type endpointsEnv struct {
	t  *testing.T
	cs kubernetes.Interface
	ns string
}

func (e *endpointsEnv) pod(name, ip string) {
	e.t.Helper()
	ctx := context.Background()
	p, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{
			Name: "c", Image: "nginx", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now()}}
	if _, err := e.cs.CoreV1().Pods(e.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *endpointsEnv) setReady(name string, ready bool) {
	e.t.Helper()
	ctx := context.Background()
	p, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()}}
	if _, err := e.cs.CoreV1().Pods(e.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// endpoints renders the Endpoints as "ready [ips] notReady [ips]".
func (e *endpointsEnv) endpoints(ctx context.Context, name string) (string, error) {
	ep, err := e.cs.CoreV1().Endpoints(e.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	var ready, notReady []string
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			ready = append(ready, fmt.Sprintf("%s:%d", a.IP, s.Ports[0].Port))
		}
		for _, a := range s.NotReadyAddresses {
			notReady = append(notReady, fmt.Sprintf("%s:%d", a.IP, s.Ports[0].Port))
		}
	}
	slices.Sort(ready)
	slices.Sort(notReady)
	return fmt.Sprintf("ready %v notReady %v", ready, notReady), nil
}

// slices renders the Service's slices managed by managedBy as
// "addr:ready/serving@zone" per endpoint.
func (e *endpointsEnv) slices(ctx context.Context, service, managedBy string) ([]string, error) {
	list, err := e.cs.DiscoveryV1().EndpointSlices(e.ns).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=" + service + "," + discoveryv1.LabelManagedBy + "=" + managedBy,
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range list.Items {
		for _, ep := range s.Endpoints {
			zone := ""
			if ep.Zone != nil {
				zone = *ep.Zone
			}
			serving := ep.Conditions.Serving != nil && *ep.Conditions.Serving
			out = append(out, fmt.Sprintf("%s:%v/%v@%s", ep.Addresses[0], *ep.Conditions.Ready, serving, zone))
		}
	}
	slices.Sort(out)
	return out, nil
}

// waitFor polls until render returns want.
func (e *endpointsEnv) waitFor(what, want string, render func(ctx context.Context) (string, error)) {
	e.t.Helper()
	var got string
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, nsWait, true, func(ctx context.Context) (bool, error) {
		got, last = render(ctx)
		return got == want, nil
	})
	if err != nil {
		e.t.Fatalf("%s: got %s, want %s (last error: %v)", what, got, want, last)
	}
}

// TestEndpointSlicesFollowPodReadiness runs the endpoints, endpointslice
// and mirroring controllers through the server: a Service's Endpoints
// and EndpointSlices follow its Pods' readiness, publishNotReadyAddresses
// and its deletion; a selector-less Service's Endpoints are mirrored.
func TestEndpointSlicesFollowPodReadiness(t *testing.T) {
	s := startServer(t, "memory")
	e := &endpointsEnv{t: t, cs: kubernetes.NewForConfigOrDie(s.restCfg), ns: "bench"}
	ctx := context.Background()
	if _, err := e.cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: "node-1", Labels: map[string]string{corev1.LabelTopologyZone: "zone-a"},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := e.cs.CoreV1().Services(e.ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eps := func(ctx context.Context) (string, error) { return e.endpoints(ctx, "web") }
	slicesOf := func(ctx context.Context) (string, error) {
		got, err := e.slices(ctx, "web", "endpointslice-controller.k8s.io")
		return fmt.Sprint(got), err
	}
	e.waitFor("endpoints", "ready [] notReady []", eps)
	e.waitFor("slices", "[]", slicesOf)

	e.pod("a", "10.244.0.1")
	e.pod("b", "10.244.0.2")
	e.waitFor("endpoints", "ready [] notReady [10.244.0.1:8080 10.244.0.2:8080]", eps)
	e.waitFor("slices", "[10.244.0.1:false/false@zone-a 10.244.0.2:false/false@zone-a]", slicesOf)

	e.setReady("a", true)
	e.waitFor("endpoints", "ready [10.244.0.1:8080] notReady [10.244.0.2:8080]", eps)
	e.waitFor("slices", "[10.244.0.1:true/true@zone-a 10.244.0.2:false/false@zone-a]", slicesOf)

	svc.Spec.PublishNotReadyAddresses = true
	if _, err := e.cs.CoreV1().Services(e.ns).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("endpoints", "ready [10.244.0.1:8080 10.244.0.2:8080] notReady []", eps)
	e.waitFor("slices", "[10.244.0.1:true/true@zone-a 10.244.0.2:true/false@zone-a]", slicesOf)

	list, err := e.cs.DiscoveryV1().EndpointSlices(e.ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("slices of web: %v (%v)", list, err)
	}
	if o := list.Items[0].OwnerReferences; len(o) != 1 || o[0].UID != svc.UID {
		t.Errorf("slice owners %+v", o)
	}

	if err := e.cs.CoreV1().Services(e.ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "endpoints and slices of web deleted", func(ctx context.Context) (bool, error) {
		_, err := e.cs.CoreV1().Endpoints(e.ns).Get(ctx, "web", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, err
		}
		list, err := e.cs.DiscoveryV1().EndpointSlices(e.ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
		return err == nil && len(list.Items) == 0, err
	})

	t.Run("mirroring", func(t *testing.T) {
		e.t = t
		if _, err := e.cs.CoreV1().Services(e.ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "ext"},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cs.CoreV1().Endpoints(e.ns).Create(ctx, &corev1.Endpoints{
			ObjectMeta: metav1.ObjectMeta{Name: "ext"},
			Subsets: []corev1.EndpointSubset{{
				Addresses:         []corev1.EndpointAddress{{IP: "192.168.10.1"}},
				NotReadyAddresses: []corev1.EndpointAddress{{IP: "192.168.10.2"}},
				Ports:             []corev1.EndpointPort{{Port: 9000}},
			}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		mirrored := func(ctx context.Context) (string, error) {
			got, err := e.slices(ctx, "ext", "endpointslicemirroring-controller.k8s.io")
			return fmt.Sprint(got), err
		}
		e.waitFor("mirrored slices", "[192.168.10.1:true/false@ 192.168.10.2:false/false@]", mirrored)
		// kapi writes default/kubernetes' slice itself (when it has an
		// address to publish): its Endpoints are never mirrored.
		got, err := e.cs.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=endpointslicemirroring-controller.k8s.io"})
		if err != nil || len(got.Items) != 0 {
			t.Errorf("mirrored slices in default: %+v (%v)", got, err)
		}
		if err := e.cs.CoreV1().Endpoints(e.ns).Delete(ctx, "ext", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.waitFor("mirrored slices", "[]", mirrored)
	})
}
