package webhookbackend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

const (
	// requestTimeout bounds one POST, as upstream's webhooks do.
	requestTimeout = 30 * time.Second
	// attempts is how many times a batch is tried before it is dropped.
	attempts = 5
)

// New returns a backend POSTing batches of events to the server of the
// kubeconfig file's current context, with its TLS and credentials. Run
// starts the batching; Shutdown sends what is buffered and waits for it.
func New(kubeconfigFile string, opts BatchOptions) (audit.Backend, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	cfg, err := loadKubeconfig(kubeconfigFile)
	if err != nil {
		return nil, err
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	// An unversioned client posts to the server URL itself, path included.
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, err
	}
	s := &sender{client: client, url: base.String(), backoff: opts.InitialBackoff}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var throttle flowcontrol.RateLimiter
	if opts.ThrottleEnable {
		throttle = flowcontrol.NewTokenBucketRateLimiter(opts.ThrottleQPS, opts.ThrottleBurst)
	}
	return newBatcher(opts, s.send, throttle), nil
}

func loadKubeconfig(path string) (*rest.Config, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading audit webhook kubeconfig %q: %w", path, err)
	}
	cfg.Timeout = requestTimeout
	// Batches are throttled by BatchOptions, not by the client.
	cfg.QPS = -1
	return cfg, nil
}

// sender POSTs one EventList, retrying any failure with exponential
// backoff: an audit sink that comes back should get the events.
type sender struct {
	client  *http.Client
	url     string
	backoff time.Duration
}

func (s *sender) send(events []*auditv1.Event) error {
	list := auditv1.EventList{
		TypeMeta: metav1.TypeMeta{APIVersion: auditv1.SchemeGroupVersion.String(), Kind: "EventList"},
		Items:    make([]auditv1.Event, len(events)),
	}
	for i, e := range events {
		list.Items[i] = *e
	}
	body, err := json.Marshal(&list)
	if err != nil {
		return err
	}
	b := wait.Backoff{Duration: s.backoff, Factor: 1.5, Jitter: 0.2, Steps: attempts}
	for {
		err = s.post(body)
		if err == nil || b.Steps <= 1 {
			return err
		}
		time.Sleep(b.Step())
	}
}

func (s *sender) post(body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Drain so the connection is reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("audit webhook answered %s", resp.Status)
	}
	return nil
}
