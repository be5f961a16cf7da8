package framework

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// waitReady polls until checkReady succeeds, the process exits or
// readyTimeout passes. Polling is the only signal an external process
// offers; the interval is short so tests do not wait long.
func (k *Kapi) waitReady() error {
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		err := k.checkReady()
		if err == nil {
			return nil
		}
		select {
		case <-k.done:
			return k.exited()
		case <-deadline.C:
			return fmt.Errorf("not ready after %v: %w", readyTimeout, err)
		case <-tick.C:
		}
	}
}

// checkReady loads the admin kubeconfig and asks /readyz with it. A
// kubeconfig that names another port is one left by an earlier run on the
// same data dir, not yet rewritten by this one.
func (k *Kapi) checkReady() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", k.kubeconfig)
	if err != nil {
		return err
	}
	if err := samePort(cfg.Host, k.url); err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	client.Timeout = 5 * time.Second
	resp, err := client.Get(k.url + "/readyz")
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /readyz: %s", resp.Status)
	}
	k.restConfig = cfg
	return nil
}

func samePort(kubeconfigHost, want string) error {
	got, err := url.Parse(kubeconfigHost)
	if err != nil {
		return fmt.Errorf("kubeconfig server %q: %w", kubeconfigHost, err)
	}
	w, err := url.Parse(want)
	if err != nil {
		return err
	}
	if got.Port() != w.Port() {
		return fmt.Errorf("kubeconfig server is %s, want port %s", kubeconfigHost, w.Port())
	}
	return nil
}
