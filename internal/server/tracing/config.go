package tracing

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GroupName is the group of the configuration file.
const GroupName = "apiserver.config.k8s.io"

// Kind is the configuration file's kind.
const Kind = "TracingConfiguration"

// Versions are the versions of the file kube-apiserver 1.37 reads; all
// three hold the same two fields.
var Versions = []string{"v1", "v1beta1", "v1alpha1"}

// Upstream's defaults: the IANA OTLP gRPC port on this host, and no span
// sampled unless the caller's trace context is.
const (
	DefaultEndpoint           = "localhost:4317"
	MaxSamplingRatePerMillion = 1000000
)

// TracingConfiguration is the --tracing-config-file, as kube-apiserver
// reads it (its fields are those of k8s.io/component-base's
// TracingConfiguration).
type TracingConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// Endpoint is the collector's OTLP gRPC address, a host:port or a gRPC
	// target ("dns://", "unix://", "unix-abstract:"); nil means
	// DefaultEndpoint. Spans are sent without TLS, as upstream sends them.
	Endpoint *string `json:"endpoint,omitempty"`
	// SamplingRatePerMillion is how many of a million requests without a
	// sampled incoming trace context are traced; nil means 0, so only
	// requests whose caller sampled them are.
	SamplingRatePerMillion *int32 `json:"samplingRatePerMillion,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (c *TracingConfiguration) DeepCopyObject() runtime.Object {
	out := *c
	if c.Endpoint != nil {
		e := *c.Endpoint
		out.Endpoint = &e
	}
	if c.SamplingRatePerMillion != nil {
		r := *c.SamplingRatePerMillion
		out.SamplingRatePerMillion = &r
	}
	return &out
}

// Config is a loaded, valid configuration with its defaults filled in.
type Config struct {
	Endpoint               string
	SamplingRatePerMillion int32
}

// Load reads, decodes and validates the file at path. Errors name the file
// and, for invalid content, the field.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read tracing configuration from %q: %w", path, err)
	}
	tc, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("unable to decode tracing configuration data from %q: %w", path, err)
	}
	if errs := Validate(tc); len(errs) > 0 {
		return nil, fmt.Errorf("failed to validate tracing configuration %q: %w", path, errs.ToAggregate())
	}
	return complete(tc), nil
}

// Decode reads YAML or JSON strictly: an unknown or duplicated field is an
// error, as is a kind or apiVersion other than TracingConfiguration of
// apiserver.config.k8s.io v1, v1beta1 or v1alpha1.
func Decode(data []byte) (*TracingConfiguration, error) {
	scheme := runtime.NewScheme()
	for _, v := range Versions {
		scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: GroupName, Version: v, Kind: Kind}, &TracingConfiguration{})
	}
	codecs := serializer.NewCodecFactory(scheme, serializer.EnableStrict)
	obj, gvk, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
	switch {
	// These two errors quote the whole file.
	case runtime.IsMissingKind(err):
		return nil, errors.New("Object 'Kind' is missing")
	case runtime.IsMissingVersion(err):
		return nil, errors.New("Object 'apiVersion' is missing")
	case err != nil:
		return nil, err
	}
	tc, ok := obj.(*TracingConfiguration)
	if !ok {
		return nil, fmt.Errorf("got unexpected config type: %v", gvk)
	}
	return tc, nil
}

// Validate checks the fields as upstream does: the sampling rate is
// between 0 and a million, and the endpoint is a gRPC target with a
// scheme gRPC dials (none, meaning dns; dns, unix or unix-abstract).
func Validate(tc *TracingConfiguration) field.ErrorList {
	var errs field.ErrorList
	if r := tc.SamplingRatePerMillion; r != nil {
		p := field.NewPath("samplingRatePerMillion")
		switch {
		case *r < 0:
			errs = append(errs, field.Invalid(p, *r, "sampling rate must be positive"))
		case *r > MaxSamplingRatePerMillion:
			errs = append(errs, field.Invalid(p, *r, "sampling rate per million must be less than or equal to one million"))
		}
	}
	if tc.Endpoint != nil {
		errs = append(errs, validateEndpoint(*tc.Endpoint, field.NewPath("endpoint"))...)
	}
	return errs
}

// validateEndpoint accepts what the OTLP exporter can dial: host:port
// (a dns target) or a target URL of a scheme gRPC resolves.
func validateEndpoint(endpoint string, p *field.Path) field.ErrorList {
	if endpoint == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	target := endpoint
	if !strings.Contains(target, "//") {
		target = "dns://" + target
	}
	u, err := url.Parse(target)
	if err != nil {
		return field.ErrorList{field.Invalid(p, endpoint, err.Error())}
	}
	switch u.Scheme {
	case "dns", "unix", "unix-abstract":
		return nil
	}
	return field.ErrorList{field.Invalid(p, endpoint, fmt.Sprintf("unsupported scheme: %v.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md", u.Scheme))}
}

// complete fills the defaults of a valid configuration.
func complete(tc *TracingConfiguration) *Config {
	c := &Config{Endpoint: DefaultEndpoint}
	if tc.Endpoint != nil {
		c.Endpoint = *tc.Endpoint
	}
	if tc.SamplingRatePerMillion != nil {
		c.SamplingRatePerMillion = *tc.SamplingRatePerMillion
	}
	return c
}
