package library

import (
	"net/url"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// urlDecls is Kubernetes' URL library: url(string), isURL(string) and
// the getters getScheme, getHost, getHostname, getPort, getEscapedPath
// and getQuery.
func urlDecls() []cel.EnvOption {
	getter := func(name, id string, fn func(*url.URL) string) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{URLType}, cel.StringType, cel.UnaryBinding(urlUnary(func(u *url.URL) ref.Val { return types.String(fn(u)) }))))
	}
	return []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, URLType, cel.UnaryBinding(stringToURL))),
		getter("getScheme", "url_get_scheme", func(u *url.URL) string { return u.Scheme }),
		getter("getHost", "url_get_host", func(u *url.URL) string { return u.Host }),
		getter("getHostname", "url_get_hostname", (*url.URL).Hostname),
		getter("getPort", "url_get_port", (*url.URL).Port),
		getter("getEscapedPath", "url_get_escaped_path", (*url.URL).EscapedPath),
		cel.Function("getQuery", cel.MemberOverload("url_get_query", []*cel.Type{URLType}, cel.MapType(cel.StringType, cel.ListType(cel.StringType)), cel.UnaryBinding(urlUnary(urlQuery)))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(isURL))),
	}
}

// stringToURL accepts absolute URLs and absolute paths, as the OpenAPI
// "uri" format does; the second, lenient parse keeps a fragment apart
// from the path and query.
func stringToURL(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	if _, err := url.ParseRequestURI(s); err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	u, err := url.Parse(s)
	if err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	return URL{u}
}

func isURL(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := url.ParseRequestURI(s)
	return types.Bool(err == nil)
}

func urlQuery(u *url.URL) ref.Val {
	out := map[ref.Val]ref.Val{}
	for k, v := range u.Query() {
		out[types.String(k)] = types.NewStringList(types.DefaultTypeAdapter, v)
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, out)
}

func urlUnary(fn func(*url.URL) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		u, ok := arg.Value().(*url.URL)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return fn(u)
	}
}
