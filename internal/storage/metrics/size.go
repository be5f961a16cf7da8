package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// sizeTimeout bounds the read of the database size a scrape waits for, as
// upstream bounds it.
const sizeTimeout = time.Second

// storageClusterID names kapi's one etcd cluster as upstream names the
// first of its storage backends.
const storageClusterID = "etcd-0"

var sizeDesc = prometheus.NewDesc("apiserver_storage_size_bytes",
	stable+"Size of the storage database file physically allocated in bytes.",
	[]string{"storage_cluster_id"}, nil)

// sizeCollector reads the database size at each scrape.
type sizeCollector struct {
	size   func(context.Context) (int64, error)
	logger *slog.Logger
}

// NewSizeCollector returns the collector of apiserver_storage_size_bytes,
// which asks size for the size of the etcd database at each scrape. A
// read that fails (or takes over a second) leaves the series out of that
// scrape, as upstream does. A nil logger discards.
func NewSizeCollector(size func(context.Context) (int64, error), logger *slog.Logger) prometheus.Collector {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &sizeCollector{size: size, logger: logger}
}

func (c *sizeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- sizeDesc }

func (c *sizeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), sizeTimeout)
	defer cancel()
	n, err := c.size(ctx)
	if err != nil {
		c.logger.Info("reading the storage size failed", "storage_cluster_id", storageClusterID, "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(sizeDesc, prometheus.GaugeValue, float64(n), storageClusterID)
}
