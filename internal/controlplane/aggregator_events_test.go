package controlplane

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"
)

// serveOneEvent answers a watch with one event, flushed, and keeps the
// watch open until the client goes.
func serveOneEvent(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"type":"ADDED","object":{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"f1","namespace":"default"}}}`+"\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// serveEcho switches an upgrade request to a line echo (a stand-in for
// the SPDY stream of exec).
func serveEcho(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") == "" {
		http.Error(w, "upgrade required", http.StatusBadRequest)
		return
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + r.Header.Get("Upgrade") + "\r\n\r\n")
	_ = rw.Flush()
	line, _ := rw.ReadString('\n')
	_, _ = rw.WriteString("echo " + line)
	_ = rw.Flush()
}

// hostIP is an IPv4 address of this host that is not loopback (an
// EndpointSlice may not hold a loopback one), or "".
func hostIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// TestAggregatorAvailabilityFollowsEndpointSlices pins the event path of
// the remote availability controller with endpoint routing: an
// APIService whose cluster IP Service's EndpointSlice points at the
// server becomes Available; marking the endpoint not ready makes it
// MissingEndpoints and deleting the slice EndpointsNotFound, each without
// waiting for the periodic check (an hour here). Through the proxy, a
// watch streams its event and an exec-like upgrade passes through.
func TestAggregatorAvailabilityFollowsEndpointSlices(t *testing.T) {
	ip := hostIP()
	if ip == "" {
		t.Skip("no non-loopback IPv4 address to put in an EndpointSlice")
	}
	frontCA, withFrontProxy := newFrontProxy(t)
	a := startAggregatedServerAt(t, frontCA, net.JoinHostPort(ip, "0"))
	s := startServer(t, "memory", withoutControllers, withFrontProxy, func(c *Config) {
		c.aggregatorAvailabilityRecheck = time.Hour
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	reg := apiregistrationclient.NewForConfigOrDie(s.restCfg)
	slice := registerBySlice(t, ctx, cs, reg, a)

	waitReason := func(reason string) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			cur, err := reg.ApiregistrationV1().APIServices().Get(ctx, "v1alpha1.wardle.example.com", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			c := v1helper.GetAPIServiceConditionByType(cur, apiregistrationv1.Available)
			return c != nil && c.Reason == reason, nil
		})
		if err != nil {
			t.Fatalf("waiting for reason %s: %v", reason, err)
		}
	}
	waitReason("Passed")
	checkWatchAndUpgrade(t, ctx, s.restCfg)
	checkAggregatorChecks(t, ctx, cs)

	slice.Endpoints[0].Conditions.Ready = ptr.To(false)
	if _, err := cs.DiscoveryV1().EndpointSlices("wardle").Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReason("MissingEndpoints")
	if err := cs.DiscoveryV1().EndpointSlices("wardle").Delete(ctx, slice.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReason("EndpointsNotFound")
}

// registerBySlice creates the cluster IP Service wardle/api (port 443,
// "https"), an EndpointSlice sending it to a's address, and the
// APIService; it returns the slice.
func registerBySlice(t *testing.T, ctx context.Context, cs kubernetes.Interface, reg apiregistrationclient.Interface, a *aggregatedServer) *discoveryv1.EndpointSlice {
	t.Helper()
	host, portStr, _ := net.SplitHostPort(a.Listener.Addr().String())
	port, _ := strconv.Atoi(portStr)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wardle"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "wardle"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}},
	}
	if _, err := cs.CoreV1().Services("wardle").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "api-1", Namespace: "wardle", Labels: map[string]string{discoveryv1.LabelServiceName: "api"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{host}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(port))}},
	}
	created, err := cs.DiscoveryV1().EndpointSlices("wardle").Create(ctx, slice, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	apiService := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "wardle.example.com", Version: "v1alpha1",
			Service:              &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: ptr.To(int32(443))},
			CABundle:             a.servingCA,
			GroupPriorityMinimum: 1000, VersionPriority: 15,
		},
	}
	if _, err := reg.ApiregistrationV1().APIServices().Create(ctx, apiService, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return created
}

// checkWatchAndUpgrade watches flunders through kapi (the event arrives
// while the watch is open) and upgrades an exec-like request over
// HTTP/1.1 (bytes flow both ways).
func checkWatchAndUpgrade(t *testing.T, ctx context.Context, cfg *rest.Config) {
	t.Helper()
	const path = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"
	// The aggregator's informer may see the APIService Available a
	// little after the test did: 503 until then.
	var stream io.ReadCloser
	// The stream outlives the poll, whose context ends when it returns:
	// it is opened with the test's.
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		var err error
		stream, err = kubernetes.NewForConfigOrDie(cfg).CoreV1().RESTClient().Get().AbsPath(path).Param("watch", "true").Stream(ctx)
		if apierrors.IsServiceUnavailable(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("watch through the aggregator: %v", err)
	}
	line, err := bufio.NewReader(stream).ReadString('\n')
	stream.Close()
	if err != nil || len(line) == 0 {
		t.Errorf("watch event %q (%v)", line, err)
	}

	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg.NextProtos = []string{"http/1.1"}
	host := cfg.Host[len("https://"):]
	conn, err := tls.Dial("tcp", host, tlsCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "POST " + path + "/f1/exec?command=sh HTTP/1.1\r\nHost: " + host + "\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
	if cfg.BearerToken != "" {
		req += "Authorization: Bearer " + cfg.BearerToken + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("upgrade through kapi: %d %s", resp.StatusCode, body)
	}
	if _, err := io.WriteString(conn, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := br.ReadString('\n'); err != nil || line != "echo ping\n" {
		t.Errorf("upgraded stream answered %q (%v)", line, err)
	}
}

// checkAggregatorChecks: /readyz lists the aggregator's checks under
// upstream's names, autoregister-completion among them, all passing once
// the server is ready.
func checkAggregatorChecks(t *testing.T, ctx context.Context, cs kubernetes.Interface) {
	t.Helper()
	body, err := cs.CoreV1().RESTClient().Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(ctx)
	if err != nil {
		t.Fatalf("/readyz: %v\n%s", err, body)
	}
	for _, want := range []string{
		"[+]autoregister-completion ok",
		"[+]poststarthook/kube-apiserver-autoregistration ok",
		"[+]poststarthook/start-kube-aggregator-informers ok",
		"[+]poststarthook/apiservice-registration-controller ok",
		"[+]poststarthook/apiservice-status-local-available-controller ok",
		"[+]poststarthook/apiservice-status-remote-available-controller ok",
		"[+]poststarthook/apiservice-wait-for-first-sync ok",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/readyz?verbose lacks %q:\n%s", want, body)
		}
	}
}
