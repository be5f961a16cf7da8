package apiserverinfo

import (
	"context"
	"log/slog"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
)

// The legacy token tracking ConfigMap, as upstream names it.
const (
	LegacyTokenTrackingConfigMap = "kube-apiserver-legacy-service-account-token-tracking"
	LegacyTokenTrackingKey       = "since"
	dateFormat                   = "2006-01-02"
)

// RunLegacyTokenTracking records, once, the day this cluster began
// tracking legacy token use (today when absent or malformed) and runs
// until ctx ends.
func RunLegacyTokenTracking(ctx context.Context, client kubernetes.Interface, newInformer InformerFunc, clk clock.PassiveClock, logger *slog.Logger) error {
	k, err := newKeeper(client, newInformer, LegacyTokenTrackingConfigMap, 0, logger, func(existing *corev1.ConfigMap) (map[string]string, error) {
		return legacyTrackingData(existing, clk.Now()), nil
	})
	if err != nil {
		return err
	}
	go k.Run(ctx)
	return nil
}

// legacyTrackingData keeps a well-formed date and replaces anything else
// with today's (UTC).
func legacyTrackingData(existing *corev1.ConfigMap, now time.Time) map[string]string {
	data := map[string]string{}
	if existing != nil {
		maps.Copy(data, existing.Data)
		if _, err := time.Parse(dateFormat, data[LegacyTokenTrackingKey]); err == nil {
			return data
		}
	}
	data[LegacyTokenTrackingKey] = now.UTC().Format(dateFormat)
	return data
}
