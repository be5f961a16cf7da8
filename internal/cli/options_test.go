package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestValidateReportsEveryProblem(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*ServeOptions)
		wants []string
	}{
		{"defaults are valid", func(*ServeOptions) {}, nil},
		{"several bad flags at once", func(o *ServeOptions) {
			o.BindAddress = "nope"
			o.SecurePort = 70000
			o.StorageBackend = "sqlite"
			o.EtcdPrefix = "registry"
		}, []string{`--bind-address "nope"`, "--secure-port 70000", `--storage-backend "sqlite"`, `--etcd-prefix "registry"`}},
		{"memory with etcd servers", func(o *ServeOptions) {
			o.StorageBackend = "memory"
			o.EtcdServers = []string{"http://127.0.0.1:2379"}
		}, []string{"--etcd-servers cannot be used with --storage-backend=memory"}},
		{"half a key pair", func(o *ServeOptions) { o.TLSCertFile = "a.crt" }, []string{"--tls-cert-file and --tls-private-key-file"}},
		{"etcd tls without servers and half a pair", func(o *ServeOptions) { o.EtcdCertFile = "etcd.crt" },
			[]string{"--etcd-certfile and --etcd-keyfile must be given together", "--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers"}},
		{"negative durations and sizes", func(o *ServeOptions) {
			o.EtcdCompactionInterval = -time.Second
			o.EtcdHealthcheckTimeout = 0
			o.DefaultWatchCacheSize = -1
		}, []string{"--etcd-compaction-interval -1s must not be negative", "--etcd-healthcheck-timeout 0s must be positive", "--default-watch-cache-size -1"}},
		{"etcd server without scheme", func(o *ServeOptions) { o.EtcdServers = []string{"127.0.0.1:2379"} }, []string{`--etcd-servers entry "127.0.0.1:2379"`}},
		{"authorization modes", func(o *ServeOptions) {
			o.AuthorizationModes = []string{"RBAC", "Magic", "RBAC", "ABAC"}
		}, []string{`"Magic"`, "RBAC", "ABAC"}},
		{"oidc half configured", func(o *ServeOptions) { o.OIDC.IssuerURL = "https://issuer" },
			[]string{"oidc-issuer-url and oidc-client-id must be specified together"}},
		{"oidc over http", func(o *ServeOptions) { o.OIDC.IssuerURL, o.OIDC.ClientID = "http://issuer", "kapi" },
			[]string{`--oidc-issuer-url "http://issuer" must be a valid URL with the https scheme`}},
		{"tls options", func(o *ServeOptions) {
			o.TLSMinVersion = "VersionTLS99"
			o.TLSCipherSuites = []string{"TLS_NOPE"}
			o.TLSSNICertKeys = []string{"only-one-file"}
		}, []string{"--tls-min-version", "--tls-cipher-suites", "--tls-sni-cert-key"}},
		{"audit and admission", func(o *ServeOptions) {
			o.AuditLogMaxAge = -1
			o.AuditLogFormat = "legacy"
			o.EnableAdmissionPlugins = []string{"NoSuchPlugin", "ImagePolicyWebhook"}
		}, []string{"--audit-log-maxage -1 can't be a negative number", `--audit-log-format "legacy"`, `--enable-admission-plugins plugin "NoSuchPlugin" is unknown`, `admission plugin "ImagePolicyWebhook" is not implemented by kapi`}},
		{"controllers and cluster signing", func(o *ServeOptions) {
			o.Controllers = []string{"*", "-nonsense", "nodeipam"}
			o.ClusterSigningCertFile = "ca.crt"
			o.ClusterSigningDuration = 0
		}, []string{`--controllers: "nonsense" is not in the list of known controllers`, `--controllers: "nodeipam" is not implemented by kapi`,
			"--cluster-signing-cert-file and --cluster-signing-key-file must be given together", "--cluster-signing-duration 0s must be positive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewServeOptions()
			tt.edit(o)
			if err := o.Complete(); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %v", tt.wants)
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestServeHelpPrintsSections(t *testing.T) {
	cmd := NewKapiCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"serve", "--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	order := []string{"Kapi flags:", "--data-dir", "Secure serving flags:", "--secure-port", "Etcd flags:", "--etcd-servers", "Generic flags:", "--max-requests-inflight"}
	last := -1
	for _, s := range order {
		i := strings.Index(help, s)
		if i < 0 || i < last {
			t.Fatalf("help does not list %q in order:\n%s", s, help)
		}
		last = i
	}
}

func TestUnknownFlagIsNamed(t *testing.T) {
	cmd := NewKapiCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"serve", "--enable-frobnication"})
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "--enable-frobnication") {
		t.Fatalf("got %v, want an error naming the flag", err)
	}
}

// TestControllersFlag checks the wiring of --controllers: kube-controller-
// manager's syntax reaches the config, an empty value means none, and
// `kapi serve` defaults to every controller.
func TestControllersFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"*"}},
		{[]string{"--controllers=*,-csrsigning"}, []string{"*", "-csrsigning"}},
		{[]string{"--controllers="}, []string{}},
	} {
		o := NewServeOptions()
		sets := &namedFlagSets{}
		o.AddFlags(sets)
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		sets.addTo(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		got := o.Config().Controllers
		if got == nil || !slices.Equal(got, tt.want) {
			t.Errorf("%v: controllers = %#v, want %#v", tt.args, got, tt.want)
		}
	}
}
