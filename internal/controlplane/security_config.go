package controlplane

import "time"

// SecurityConfig is who may do what and how it is recorded: the
// authenticators, the authorizers, audit, encryption at rest and the TLS
// options, each named after the kube-apiserver flag that sets it. The
// zero value (a Config built in code) is kapi's default: client
// certificates only, RBAC and Node authorization, no audit, no encryption.
type SecurityConfig struct {
	// Authentication.
	AnonymousAuth            bool
	TokenAuthFile            string
	EnableBootstrapTokenAuth bool
	ServiceAccountKeyFiles   []string
	// ServiceAccountLookup is --service-account-lookup; DisableServiceAccountLookup
	// keeps the zero value the upstream default (on).
	DisableServiceAccountLookup bool
	OIDC                        OIDCConfig
	TokenWebhookConfigFile      string
	TokenWebhookCacheTTL        time.Duration
	RequestHeader               RequestHeaderConfig
	// ProxyClientCertFile and ProxyClientKeyFile are the client
	// certificate the aggregator presents to remote APIServices (upstream's
	// --proxy-client-cert-file and --proxy-client-key-file). Empty means
	// no client certificate, as upstream.
	ProxyClientCertFile, ProxyClientKeyFile string

	// Authorization: modes in order; empty means Node,RBAC.
	AuthorizationModes                     []string
	AuthorizationPolicyFile                string
	AuthorizationWebhookConfigFile         string
	AuthorizationWebhookCacheAuthorizedTTL time.Duration
	AuthorizationWebhookCacheUnauthTTL     time.Duration

	// Admission plugins switched on or off beyond the defaults.
	EnableAdmissionPlugins, DisableAdmissionPlugins []string
	// AdmissionControlConfigFile is an AdmissionConfiguration file with
	// per-plugin configuration (--admission-control-config-file).
	AdmissionControlConfigFile string

	// Audit.
	AuditPolicyFile            string
	AuditLogPath               string
	AuditLogMaxAge             int
	AuditLogMaxBackups         int
	AuditLogMaxSize            int
	AuditWebhookConfigFile     string
	AuditWebhookBatchMaxSize   int
	AuditWebhookBatchMaxWait   time.Duration
	AuditWebhookInitialBackoff time.Duration

	// EncryptionProviderConfig is an EncryptionConfiguration file.
	EncryptionProviderConfig string

	// TLS: --tls-sni-cert-key values, --tls-min-version, --tls-cipher-suites.
	TLSSNICertKeys  []string
	TLSMinVersion   string
	TLSCipherSuites []string
}

// OIDCConfig is the --oidc-* flags.
type OIDCConfig struct {
	IssuerURL, ClientID, CAFile   string
	UsernameClaim, UsernamePrefix string
	GroupsClaim, GroupsPrefix     string
	RequiredClaims                map[string]string
	SigningAlgs                   []string
}

// RequestHeaderConfig is the --requestheader-* flags.
type RequestHeaderConfig struct {
	ClientCAFile        string
	AllowedNames        []string
	UsernameHeaders     []string
	UIDHeaders          []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

// defaultAuthorizationModes are kapi's: unlike kube-apiserver's
// AlwaysAllow, a fresh server lets in only the credentials it wrote.
var defaultAuthorizationModes = []string{"Node", "RBAC"}

// authorizationModes are the configured modes or the defaults.
func (c *SecurityConfig) authorizationModes() []string {
	if len(c.AuthorizationModes) == 0 {
		return defaultAuthorizationModes
	}
	return c.AuthorizationModes
}
