package controlplane

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/internal/audit"
	"github.com/kapi-dev/kapi/internal/audit/logbackend"
	"github.com/kapi-dev/kapi/internal/audit/webhookbackend"
)

// newAudit builds the audit policy checker and backends of the config;
// both are nil without --audit-policy-file or without a backend, as
// upstream records nothing then. The backends run until ctx ends and
// flush on the way out.
func newAudit(ctx context.Context, c *Config) (audit.Checker, audit.Backend, error) {
	sec := &c.Security
	if sec.AuditPolicyFile == "" {
		return nil, nil, nil
	}
	policy, err := audit.LoadPolicy(sec.AuditPolicyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("--audit-policy-file: %w", err)
	}
	var backends []audit.Backend
	if sec.AuditLogPath != "" {
		b, err := logbackend.New(sec.AuditLogPath, sec.AuditLogMaxSize, sec.AuditLogMaxAge, sec.AuditLogMaxBackups)
		if err != nil {
			return nil, nil, fmt.Errorf("--audit-log-path: %w", err)
		}
		backends = append(backends, b)
	}
	if sec.AuditWebhookConfigFile != "" {
		opts := webhookbackend.DefaultBatchOptions()
		if sec.AuditWebhookBatchMaxSize > 0 {
			opts.MaxBatchSize = sec.AuditWebhookBatchMaxSize
		}
		if sec.AuditWebhookBatchMaxWait > 0 {
			opts.MaxBatchWait = sec.AuditWebhookBatchMaxWait
		}
		if sec.AuditWebhookInitialBackoff > 0 {
			opts.InitialBackoff = sec.AuditWebhookInitialBackoff
		}
		b, err := webhookbackend.New(sec.AuditWebhookConfigFile, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("--audit-webhook-config-file: %w", err)
		}
		backends = append(backends, b)
	}
	if len(backends) == 0 {
		return nil, nil, nil
	}
	backend := audit.Union(backends...)
	if err := backend.Run(ctx.Done()); err != nil {
		return nil, nil, fmt.Errorf("starting the audit backends: %w", err)
	}
	return audit.NewChecker(policy), backend, nil
}
