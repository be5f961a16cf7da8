package cli

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/internal/auth/authorizer/modes"
	"github.com/kapi-dev/kapi/internal/controlplane"
	"github.com/kapi-dev/kapi/internal/server/dynamiccertificates"
)

// securityOptions are the authentication, authorization, admission,
// audit, encryption and TLS flags, named and defaulted as kube-apiserver's
// except where kapi's default must stay closed: --anonymous-auth is off
// and --authorization-mode is Node,RBAC.
type securityOptions struct {
	AnonymousAuth            bool
	TokenAuthFile            string
	EnableBootstrapTokenAuth bool
	ServiceAccountKeyFiles   []string
	ServiceAccountLookup     bool
	OIDC                     controlplane.OIDCConfig
	TokenWebhookConfigFile   string
	TokenWebhookCacheTTL     time.Duration
	TokenWebhookVersion      string
	RequestHeader            controlplane.RequestHeaderConfig
	// ProxyClientCertFile and ProxyClientKeyFile are the front-proxy
	// client certificate the aggregator presents to remote APIServices.
	ProxyClientCertFile, ProxyClientKeyFile string

	AuthorizationModes                     []string
	AuthorizationPolicyFile                string
	AuthorizationWebhookConfigFile         string
	AuthorizationWebhookVersion            string
	AuthorizationWebhookCacheAuthorizedTTL time.Duration
	AuthorizationWebhookCacheUnauthTTL     time.Duration

	EnableAdmissionPlugins, DisableAdmissionPlugins []string
	AdmissionControlConfigFile                      string

	AuditPolicyFile            string
	AuditLogPath               string
	AuditLogFormat             string
	AuditLogMaxAge             int
	AuditLogMaxBackups         int
	AuditLogMaxSize            int
	AuditWebhookConfigFile     string
	AuditWebhookBatchMaxSize   int
	AuditWebhookBatchMaxWait   time.Duration
	AuditWebhookInitialBackoff time.Duration

	EncryptionProviderConfig string

	TLSSNICertKeys  []string
	TLSMinVersion   string
	TLSCipherSuites []string
}

func defaultSecurityOptions() securityOptions {
	return securityOptions{
		ServiceAccountLookup:                   true,
		OIDC:                                   controlplane.OIDCConfig{UsernameClaim: "sub", SigningAlgs: []string{"RS256"}},
		TokenWebhookCacheTTL:                   2 * time.Minute,
		TokenWebhookVersion:                    "v1",
		AuthorizationModes:                     []string{"Node", "RBAC"},
		AuthorizationWebhookVersion:            "v1",
		AuthorizationWebhookCacheAuthorizedTTL: 5 * time.Minute,
		AuthorizationWebhookCacheUnauthTTL:     30 * time.Second,
		AuditLogFormat:                         "json",
		AuditWebhookBatchMaxSize:               400,
		AuditWebhookBatchMaxWait:               30 * time.Second,
		AuditWebhookInitialBackoff:             10 * time.Second,
	}
}

func (o *securityOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("secure serving")
	fs.StringArrayVar(&o.TLSSNICertKeys, "tls-sni-cert-key", o.TLSSNICertKeys, `A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments, e.g. "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com". May be given several times.`)
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", o.TLSMinVersion, "Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13.")
	fs.StringSliceVar(&o.TLSCipherSuites, "tls-cipher-suites", o.TLSCipherSuites, "Comma-separated list of cipher suites for the server (IANA names). If omitted, the default Go cipher suites will be used.")

	fs = sets.FlagSet("authentication")
	fs.BoolVar(&o.AnonymousAuth, "anonymous-auth", o.AnonymousAuth, "Enables anonymous requests: requests that no other authentication method rejects are treated as user system:anonymous in group system:unauthenticated. Off by default in kapi.")
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, "If set, the file that will be used to secure the secure port of the API server via token authentication (CSV: token,user,uid,\"group1,group2\").")
	fs.BoolVar(&o.EnableBootstrapTokenAuth, "enable-bootstrap-token-auth", o.EnableBootstrapTokenAuth, "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication.")
	fs.StringArrayVar(&o.ServiceAccountKeyFiles, "service-account-key-file", o.ServiceAccountKeyFiles, "File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. May be given several times. Defaults to the public key of --service-account-signing-key-file.")
	fs.BoolVar(&o.ServiceAccountLookup, "service-account-lookup", o.ServiceAccountLookup, "If true, validate ServiceAccount tokens exist in etcd as part of authentication.")
	fs.StringVar(&o.OIDC.IssuerURL, "oidc-issuer-url", o.OIDC.IssuerURL, "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).")
	fs.StringVar(&o.OIDC.ClientID, "oidc-client-id", o.OIDC.ClientID, "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.")
	fs.StringVar(&o.OIDC.CAFile, "oidc-ca-file", o.OIDC.CAFile, "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.")
	fs.StringVar(&o.OIDC.UsernameClaim, "oidc-username-claim", o.OIDC.UsernameClaim, "The OpenID claim to use as the user name.")
	fs.StringVar(&o.OIDC.UsernamePrefix, "oidc-username-prefix", o.OIDC.UsernamePrefix, "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.")
	fs.StringVar(&o.OIDC.GroupsClaim, "oidc-groups-claim", o.OIDC.GroupsClaim, "If provided, the name of a custom OpenID Connect claim for specifying user groups (a string or an array of strings).")
	fs.StringVar(&o.OIDC.GroupsPrefix, "oidc-groups-prefix", o.OIDC.GroupsPrefix, "If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.")
	fs.StringToStringVar(&o.OIDC.RequiredClaims, "oidc-required-claim", o.OIDC.RequiredClaims, "A key=value pair that describes a required claim in the ID Token. May be given several times.")
	fs.StringSliceVar(&o.OIDC.SigningAlgs, "oidc-signing-algs", o.OIDC.SigningAlgs, "Comma-separated list of allowed JOSE asymmetric signing algorithms.")
	fs.StringVar(&o.TokenWebhookConfigFile, "authentication-token-webhook-config-file", o.TokenWebhookConfigFile, "File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.")
	fs.DurationVar(&o.TokenWebhookCacheTTL, "authentication-token-webhook-cache-ttl", o.TokenWebhookCacheTTL, "The duration to cache responses from the webhook token authenticator.")
	fs.StringVar(&o.TokenWebhookVersion, "authentication-token-webhook-version", o.TokenWebhookVersion, "The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook (kapi speaks v1).")
	fs.StringVar(&o.RequestHeader.ClientCAFile, "requestheader-client-ca-file", o.RequestHeader.ClientCAFile, "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers.")
	fs.StringSliceVar(&o.RequestHeader.AllowedNames, "requestheader-allowed-names", o.RequestHeader.AllowedNames, "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.")
	fs.StringSliceVar(&o.RequestHeader.UsernameHeaders, "requestheader-username-headers", o.RequestHeader.UsernameHeaders, "List of request headers to inspect for usernames. X-Remote-User is common.")
	fs.StringSliceVar(&o.RequestHeader.UIDHeaders, "requestheader-uid-headers", o.RequestHeader.UIDHeaders, "List of request headers to inspect for UIDs. X-Remote-Uid is suggested.")
	fs.StringSliceVar(&o.RequestHeader.GroupHeaders, "requestheader-group-headers", o.RequestHeader.GroupHeaders, "List of request headers to inspect for groups. X-Remote-Group is suggested.")
	fs.StringSliceVar(&o.RequestHeader.ExtraHeaderPrefixes, "requestheader-extra-headers-prefix", o.RequestHeader.ExtraHeaderPrefixes, "List of request header prefixes to inspect. X-Remote-Extra- is suggested.")

	fs = sets.FlagSet("authorization")
	fs.StringSliceVar(&o.AuthorizationModes, "authorization-mode", o.AuthorizationModes, "Ordered list of plug-ins to do authorization on secure port: AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node. Members of system:masters are always allowed.")
	fs.StringVar(&o.AuthorizationPolicyFile, "authorization-policy-file", o.AuthorizationPolicyFile, "File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.")
	fs.StringVar(&o.AuthorizationWebhookConfigFile, "authorization-webhook-config-file", o.AuthorizationWebhookConfigFile, "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook.")
	fs.StringVar(&o.AuthorizationWebhookVersion, "authorization-webhook-version", o.AuthorizationWebhookVersion, "The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook (kapi speaks v1).")
	fs.DurationVar(&o.AuthorizationWebhookCacheAuthorizedTTL, "authorization-webhook-cache-authorized-ttl", o.AuthorizationWebhookCacheAuthorizedTTL, "The duration to cache 'authorized' responses from the webhook authorizer.")
	fs.DurationVar(&o.AuthorizationWebhookCacheUnauthTTL, "authorization-webhook-cache-unauthorized-ttl", o.AuthorizationWebhookCacheUnauthTTL, "The duration to cache 'unauthorized' responses from the webhook authorizer.")

	fs = sets.FlagSet("admission")
	fs.StringSliceVar(&o.EnableAdmissionPlugins, "enable-admission-plugins", o.EnableAdmissionPlugins, "Admission plugins that should be enabled in addition to default enabled ones ("+strings.Join(controlplane.DefaultAdmissionPlugins, ", ")+"). Upstream's names are accepted; naming one kapi does not implement is an error. Implemented, in the order they run: "+strings.Join(controlplane.AdmissionPlugins, ", ")+".")
	fs.StringSliceVar(&o.DisableAdmissionPlugins, "disable-admission-plugins", o.DisableAdmissionPlugins, "Admission plugins that should be disabled although they are in the default enabled plugins list. Any of upstream's names is accepted.")
	fs.StringVar(&o.AdmissionControlConfigFile, "admission-control-config-file", o.AdmissionControlConfigFile, "File with admission control configuration (an AdmissionConfiguration).")

	fs = sets.FlagSet("auditing")
	fs.StringVar(&o.AuditPolicyFile, "audit-policy-file", o.AuditPolicyFile, "Path to the file that defines the audit policy configuration.")
	fs.StringVar(&o.AuditLogPath, "audit-log-path", o.AuditLogPath, "If set, all requests coming to the apiserver will be logged to this file. '-' means standard out.")
	fs.StringVar(&o.AuditLogFormat, "audit-log-format", o.AuditLogFormat, "Format of saved audits. Known formats are: json.")
	fs.IntVar(&o.AuditLogMaxAge, "audit-log-maxage", o.AuditLogMaxAge, "The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.")
	fs.IntVar(&o.AuditLogMaxBackups, "audit-log-maxbackup", o.AuditLogMaxBackups, "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.")
	fs.IntVar(&o.AuditLogMaxSize, "audit-log-maxsize", o.AuditLogMaxSize, "The maximum size in megabytes of the audit log file before it gets rotated.")
	fs.StringVar(&o.AuditWebhookConfigFile, "audit-webhook-config-file", o.AuditWebhookConfigFile, "Path to a kubeconfig formatted file that defines the audit webhook configuration.")
	fs.IntVar(&o.AuditWebhookBatchMaxSize, "audit-webhook-batch-max-size", o.AuditWebhookBatchMaxSize, "The maximum size of a batch.")
	fs.DurationVar(&o.AuditWebhookBatchMaxWait, "audit-webhook-batch-max-wait", o.AuditWebhookBatchMaxWait, "The amount of time to wait before force writing the batch that hadn't reached the max size.")
	fs.DurationVar(&o.AuditWebhookInitialBackoff, "audit-webhook-initial-backoff", o.AuditWebhookInitialBackoff, "The amount of time to wait before retrying the first failed request.")

	fs = sets.FlagSet("etcd")
	fs.StringVar(&o.EncryptionProviderConfig, "encryption-provider-config", o.EncryptionProviderConfig, "The file containing configuration for encryption providers to be used for storing secrets in etcd.")

	// kube-apiserver lists these under "misc".
	fs = sets.FlagSet("misc")
	fs.StringVar(&o.ProxyClientCertFile, "proxy-client-cert-file", o.ProxyClientCertFile, "Client certificate the aggregator presents when it proxies a request to an aggregated API server (a remote APIService). It should be signed by a CA in --requestheader-client-ca-file, which kapi publishes in the kube-system/extension-apiserver-authentication ConfigMap for those servers to verify it. Without it (and --proxy-client-key-file), no client certificate is sent. kapi does not use it for admission webhooks.")
	fs.StringVar(&o.ProxyClientKeyFile, "proxy-client-key-file", o.ProxyClientKeyFile, "Private key of --proxy-client-cert-file.")
}

func (o *securityOptions) validate() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.OIDC.IssuerURL != "" || o.OIDC.ClientID != "" {
		if o.OIDC.IssuerURL == "" || o.OIDC.ClientID == "" {
			add("oidc-issuer-url and oidc-client-id must be specified together")
		} else if u, err := url.Parse(o.OIDC.IssuerURL); err != nil || u.Scheme != "https" {
			add("--oidc-issuer-url %q must be a valid URL with the https scheme", o.OIDC.IssuerURL)
		}
	}
	if o.TokenWebhookVersion != "v1" {
		add("--authentication-token-webhook-version %q is not supported: kapi speaks v1", o.TokenWebhookVersion)
	}
	if o.AuthorizationWebhookVersion != "v1" {
		add("--authorization-webhook-version %q is not supported: kapi speaks v1", o.AuthorizationWebhookVersion)
	}
	errs = append(errs, o.validateRequestHeader()...)
	if err := validateProxyClientCert(o.ProxyClientCertFile, o.ProxyClientKeyFile); err != nil {
		errs = append(errs, err)
	}
	if o.AuditLogFormat != "json" {
		add("--audit-log-format %q is not supported: use json", o.AuditLogFormat)
	}
	for name, v := range map[string]int{"audit-log-maxage": o.AuditLogMaxAge, "audit-log-maxbackup": o.AuditLogMaxBackups, "audit-log-maxsize": o.AuditLogMaxSize} {
		if v < 0 {
			add("--%s %v can't be a negative number", name, v)
		}
	}
	if o.AuditWebhookBatchMaxSize <= 0 {
		add("--audit-webhook-batch-max-size %d must be positive", o.AuditWebhookBatchMaxSize)
	}
	if err := modes.Validate(o.AuthorizationModes, o.AuthorizationPolicyFile, o.AuthorizationWebhookConfigFile); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, controlplane.ValidateAdmissionPluginNames(o.EnableAdmissionPlugins, o.DisableAdmissionPlugins)...)
	if _, err := dynamiccertificates.ParseTLSVersion(o.TLSMinVersion); err != nil {
		add("--tls-min-version: %v", err)
	}
	if _, err := dynamiccertificates.ParseCipherSuites(o.TLSCipherSuites); err != nil {
		add("--tls-cipher-suites: %v", err)
	}
	for _, s := range o.TLSSNICertKeys {
		if _, err := dynamiccertificates.ParseSNICertKey(s); err != nil {
			add("--tls-sni-cert-key: %v", err)
		}
	}
	return errs
}

// fill puts valid options into c.
func (o *securityOptions) fill(c *controlplane.Config) {
	c.Security = controlplane.SecurityConfig{
		AnonymousAuth:                          o.AnonymousAuth,
		TokenAuthFile:                          o.TokenAuthFile,
		EnableBootstrapTokenAuth:               o.EnableBootstrapTokenAuth,
		ServiceAccountKeyFiles:                 o.ServiceAccountKeyFiles,
		DisableServiceAccountLookup:            !o.ServiceAccountLookup,
		OIDC:                                   o.OIDC,
		TokenWebhookConfigFile:                 o.TokenWebhookConfigFile,
		TokenWebhookCacheTTL:                   o.TokenWebhookCacheTTL,
		RequestHeader:                          o.RequestHeader,
		ProxyClientCertFile:                    o.ProxyClientCertFile,
		ProxyClientKeyFile:                     o.ProxyClientKeyFile,
		AuthorizationModes:                     o.AuthorizationModes,
		AuthorizationPolicyFile:                o.AuthorizationPolicyFile,
		AuthorizationWebhookConfigFile:         o.AuthorizationWebhookConfigFile,
		AuthorizationWebhookCacheAuthorizedTTL: o.AuthorizationWebhookCacheAuthorizedTTL,
		AuthorizationWebhookCacheUnauthTTL:     o.AuthorizationWebhookCacheUnauthTTL,
		EnableAdmissionPlugins:                 o.EnableAdmissionPlugins,
		DisableAdmissionPlugins:                o.DisableAdmissionPlugins,
		AdmissionControlConfigFile:             o.AdmissionControlConfigFile,
		AuditPolicyFile:                        o.AuditPolicyFile,
		AuditLogPath:                           o.AuditLogPath,
		AuditLogMaxAge:                         o.AuditLogMaxAge,
		AuditLogMaxBackups:                     o.AuditLogMaxBackups,
		AuditLogMaxSize:                        o.AuditLogMaxSize,
		AuditWebhookConfigFile:                 o.AuditWebhookConfigFile,
		AuditWebhookBatchMaxSize:               o.AuditWebhookBatchMaxSize,
		AuditWebhookBatchMaxWait:               o.AuditWebhookBatchMaxWait,
		AuditWebhookInitialBackoff:             o.AuditWebhookInitialBackoff,
		EncryptionProviderConfig:               o.EncryptionProviderConfig,
		TLSSNICertKeys:                         o.TLSSNICertKeys,
		TLSMinVersion:                          o.TLSMinVersion,
		TLSCipherSuites:                        o.TLSCipherSuites,
	}
}
