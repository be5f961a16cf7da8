package library_test

import (
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	kcel "github.com/kapi-dev/kapi/internal/apiextensions/cel"
)

// libCase is one expression: it evaluates to true, or fails with an error
// containing wantErr (at compile time when compileErr).
type libCase struct {
	expr       string
	wantErr    string
	compileErr bool
}

// run evaluates each case in the base environment CRD rules and
// admission expressions share.
func run(t *testing.T, cases []libCase) {
	t.Helper()
	env, err := kcel.BaseEnv()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			ast, iss := env.Compile(c.expr)
			if iss.Err() != nil {
				if c.compileErr && strings.Contains(iss.Err().Error(), c.wantErr) {
					return
				}
				t.Fatalf("compile: %v", iss.Err())
			}
			if c.compileErr {
				t.Fatalf("compiled, want compile error %q", c.wantErr)
			}
			prg, err := env.Program(ast, kcel.ProgramOptions()...)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := prg.Eval(cel.NoVars())
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, %v; want error %q", out, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if out != types.True {
				t.Fatalf("= %v, want true", out)
			}
		})
	}
}

// The examples are upstream's documented ones (kubernetes.io "CEL in
// Kubernetes" and the library docs) and their edge cases.
func TestQuantity(t *testing.T) {
	run(t, []libCase{
		{expr: `isQuantity("1.3G")`},
		{expr: `isQuantity("1.3Gi")`},
		{expr: `!isQuantity("1,3G")`},
		{expr: `!isQuantity("10000k0")`},
		{expr: `quantity("50k") == quantity("50000")`},
		{expr: `quantity("200M").compareTo(quantity("0.2G")) == 0`},
		{expr: `quantity("150Mi").isGreaterThan(quantity("100Mi"))`},
		{expr: `quantity("50M").isLessThan(quantity("100M"))`},
		{expr: `quantity("50k").add(20) == quantity("50020")`},
		{expr: `quantity("50k").add(quantity("20")) == quantity("50020")`},
		{expr: `quantity("50k").sub(20) == quantity("49980")`},
		{expr: `quantity("50k").sub(quantity("20")) == quantity("49980")`},
		{expr: `quantity("50k").add(20).sub(quantity("100k")).add(49980).asInteger() == 0`},
		{expr: `quantity("10000k").asInteger() == 10000000`},
		{expr: `quantity("50000000G").isInteger()`},
		{expr: `!quantity("9999999999999999999999999999999999999G").isInteger()`},
		{expr: `quantity("9999999999999999999999999999999999999G").asInteger() == 0`, wantErr: "cannot convert value to integer"},
		{expr: `quantity("1.5").asInteger() == 1`, wantErr: "cannot convert value to integer"},
		{expr: `quantity("50.703k").asApproximateFloat() == 50703.0`},
		{expr: `sign(quantity("5k")) == 1 && sign(quantity("-5k")) == -1 && sign(quantity("0")) == 0`},
		{expr: `quantity("1,3G") == quantity("1")`, wantErr: "quantities must match the regular expression"},
		{expr: `quantity(1)`, wantErr: "found no matching overload for 'quantity'", compileErr: true},
	})
}

func TestIP(t *testing.T) {
	run(t, []libCase{
		{expr: `isIP("192.168.0.1")`},
		{expr: `!isIP("192.168.0.1.0")`},
		{expr: `!isIP("fe80::1%eth0")`},
		{expr: `!isIP("::ffff:192.168.0.1")`},
		{expr: `ip("192.168.0.1") == ip("192.168.0.1")`},
		{expr: `ip("192.168.0.1.0") == ip("1.1.1.1")`, wantErr: `IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long`},
		{expr: `ip("fe80::1%eth0") == ip("::1")`, wantErr: `IP address "fe80::1%eth0" with zone value is not allowed`},
		{expr: `ip("::ffff:192.168.0.1") == ip("::1")`, wantErr: `IPv4-mapped IPv6 address "::ffff:192.168.0.1" is not allowed`},
		{expr: `ip.isCanonical("127.0.0.1")`},
		{expr: `ip.isCanonical("2001:db8::abcd")`},
		{expr: `!ip.isCanonical("2001:DB8::ABCD")`},
		{expr: `!ip.isCanonical("2001:db8:0:0:0:0:0:abcd")`},
		{expr: `ip("192.168.0.1").family() == 4 && ip("::1").family() == 6`},
		{expr: `ip("0.0.0.0").isUnspecified() && !ip("127.0.0.1").isUnspecified()`},
		{expr: `ip("127.0.0.1").isLoopback() && !ip("1.2.3.4").isLoopback()`},
		{expr: `ip("224.0.0.1").isLinkLocalMulticast() && !ip("224.0.1.1").isLinkLocalMulticast()`},
		{expr: `ip("169.254.169.254").isLinkLocalUnicast() && !ip("192.168.0.1").isLinkLocalUnicast()`},
		{expr: `ip("192.168.0.1").isGlobalUnicast() && !ip("255.255.255.255").isGlobalUnicast()`},
		{expr: `string(ip("2001:DB8::ABCD")) == "2001:db8::abcd"`},
	})
}

func TestCIDR(t *testing.T) {
	run(t, []libCase{
		{expr: `isCIDR("192.168.0.0/16")`},
		{expr: `!isCIDR("192.168.0.0/33")`},
		{expr: `cidr("192.168.0.0/16").containsIP(ip("192.168.0.1"))`},
		{expr: `cidr("192.168.0.0/16").containsIP("192.168.0.1")`},
		{expr: `!cidr("192.168.0.0/24").containsIP("192.168.1.1")`},
		{expr: `cidr("192.168.0.0/16").containsCIDR(cidr("192.168.10.0/24"))`},
		{expr: `cidr("192.168.0.0/16").containsCIDR("192.168.10.0/24")`},
		{expr: `!cidr("192.168.0.0/24").containsCIDR("192.168.0.0/16")`},
		{expr: `!cidr("192.168.0.0/16").containsCIDR("::1/128")`},
		{expr: `cidr("192.168.0.0/24").ip() == ip("192.168.0.0")`},
		{expr: `cidr("192.168.0.1/24").ip() == ip("192.168.0.1")`},
		{expr: `cidr("192.168.0.1/24").prefixLength() == 24`},
		{expr: `cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")`},
		{expr: `cidr("::1/128").ip().family() == 6`},
		{expr: `string(cidr("192.168.0.0/24")) == "192.168.0.0/24"`},
		{expr: `cidr("192.168.0.0/33") == cidr("1.0.0.0/8")`, wantErr: `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/33"): prefix length out of range`},
		{expr: `cidr("::ffff:192.168.0.1/24") == cidr("1.0.0.0/8")`, wantErr: `IPv4-mapped IPv6 address "::ffff:192.168.0.1/24" is not allowed`},
	})
}

func TestURL(t *testing.T) {
	run(t, []libCase{
		{expr: `isURL("https://example.com")`},
		{expr: `isURL("/absolute-path")`},
		{expr: `!isURL("relative-path")`},
		{expr: `url("https://example.com/path").getScheme() == "https"`},
		{expr: `url("/absolute-path").getScheme() == ""`},
		{expr: `url("https://example.com:80/").getHost() == "example.com:80"`},
		{expr: `url("https://[::1]:80/").getHost() == "[::1]:80"`},
		{expr: `url("https://[::1]:80/").getHostname() == "::1"`},
		{expr: `url("https://example.com:80/").getPort() == "80"`},
		{expr: `url("https://example.com/").getPort() == ""`},
		{expr: `url("https://example.com/path with spaces/").getEscapedPath() == "/path%20with%20spaces/"`},
		{expr: `url("https://example.com/?k=true&k=false&j=x").getQuery() == {"k": ["true", "false"], "j": ["x"]}`},
		{expr: `url("https://example.com/#frag").getEscapedPath() == "/"`},
		{expr: `url("relative") == url("/x")`, wantErr: `URL parse error during conversion from string: parse "relative": invalid URI for request`},
	})
}

func TestFormat(t *testing.T) {
	run(t, []libCase{
		{expr: `!format.named("dns1123Label").value().validate("my-label-name").hasValue()`},
		{expr: `format.named("dns1123Label").value().validate("MY_LABEL").hasValue()`},
		{expr: `format.named("dns1123Label").value().validate("MY_LABEL").value()[0].startsWith("a lowercase RFC 1123 label must consist of")`},
		{expr: `!format.named("unknown").hasValue()`},
		{expr: `format.named("dns1123Subdomain").hasValue() && format.named("dns1035Label").hasValue() && format.named("qualifiedName").hasValue()`},
		{expr: `!format.named("dns1123LabelPrefix").value().validate("my-label-prefix-").hasValue()`},
		{expr: `!format.named("labelValue").value().validate("my-cool-label-Value").hasValue()`},
		{expr: `!format.named("uri").value().validate("http://example.com").hasValue()`},
		{expr: `format.named("uri").value().validate("example").value() == ["parse \"example\": invalid URI for request"]`},
		{expr: `!format.named("uuid").value().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()`},
		{expr: `format.named("uuid").value().validate("x").value() == ["does not match the UUID format"]`},
		{expr: `format.named("byte").value().validate("%%").value() == ["invalid base64"]`},
		{expr: `!format.named("date").value().validate("2024-01-30").hasValue()`},
		{expr: `format.named("datetime").value().validate("yesterday").value() == ["invalid datetime"]`},
		{expr: `format.named("dns1123Label") == format.named("dns1123Label")`},
	})
}

func TestSemver(t *testing.T) {
	run(t, []libCase{
		{expr: `isSemver("1.0.0")`},
		{expr: `!isSemver("v1.0")`},
		{expr: `isSemver("v1.0", true)`},
		{expr: `!isSemver("1.0", false)`},
		{expr: `semver("1.0.0") == semver("1.0.0")`},
		{expr: `semver("1.0.0").isGreaterThan(semver("0.1.0"))`},
		{expr: `semver("1.0.0").isLessThan(semver("1.1.0"))`},
		{expr: `semver("1.0.0").compareTo(semver("2.0.0")) == -1`},
		{expr: `semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3`},
		{expr: `semver("v01.01", true) == semver("1.1.0")`},
		{expr: `semver("1.0.0-alpha").isLessThan(semver("1.0.0"))`},
		{expr: `semver("v1.0.0") == semver("1.0.0")`, wantErr: `Invalid character(s) found in major number "v1"`},
		{expr: `semver("1.0-beta", true) == semver("1.0.0")`, wantErr: "short version cannot contain PreRelease/Build meta data"},
	})
}

func TestListsIncludes(t *testing.T) {
	run(t, []libCase{
		{expr: `[1, 2, 3].includes(2)`},
		{expr: `![1, 2, 3].includes(4)`},
		{expr: `'model-a'.includes('model-a')`},
		{expr: `!'model-a'.includes('model-b')`},
	})
}
