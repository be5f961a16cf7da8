package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// ConnectResource serves a connect subresource (pods/{name}/exec, ...):
// admission sees a CONNECT with the options object, then the storage
// answers with a handler, or an error written as a Status.
func ConnectResource(c rest.Connecter, scope *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, err := scope.resolve(req, true)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		if err := scope.admitConnect(t.ctx, req, t.namespace, t.name); err != nil {
			scope.err(err, w, req)
			return
		}
		h, err := c.Connect(t.ctx, t.name, req)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		h.ServeHTTP(w, req)
	}
}

// admitConnect runs both halves of admission on a connect request, as
// upstream, with the subresource's options decoded from the query.
func (s *RequestScope) admitConnect(ctx context.Context, req *http.Request, namespace, name string) error {
	if s.Admission == nil {
		return nil
	}
	opts := connectOptions(s.Resource.Resource, s.Subresource)
	if opts != nil {
		if err := decodeQuery(req.URL.Query(), opts); err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		opts.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kindOf(opts)))
	}
	a := s.attrs(ctx, admission.Connect, namespace, name, opts, nil, false)
	a.Options = opts
	if opts != nil {
		a.Kind = opts.GetObjectKind().GroupVersionKind()
	}
	if err := s.Admission.Admit(ctx, a); err != nil {
		return err
	}
	return s.Admission.Validate(ctx, a)
}

// connectOptions is the options object upstream decodes for a connect
// subresource (nil for one it has none for).
func connectOptions(resource, sub string) runtime.Object {
	switch resource + "/" + sub {
	case "pods/exec":
		return &corev1.PodExecOptions{}
	case "pods/attach":
		return &corev1.PodAttachOptions{}
	case "pods/portforward":
		return &corev1.PodPortForwardOptions{}
	case "pods/proxy":
		return &corev1.PodProxyOptions{}
	case "services/proxy":
		return &corev1.ServiceProxyOptions{}
	case "nodes/proxy":
		return &corev1.NodeProxyOptions{}
	}
	return nil
}

func kindOf(obj runtime.Object) string {
	switch obj.(type) {
	case *corev1.PodExecOptions:
		return "PodExecOptions"
	case *corev1.PodAttachOptions:
		return "PodAttachOptions"
	case *corev1.PodPortForwardOptions:
		return "PodPortForwardOptions"
	case *corev1.PodProxyOptions:
		return "PodProxyOptions"
	case *corev1.ServiceProxyOptions:
		return "ServiceProxyOptions"
	case *corev1.NodeProxyOptions:
		return "NodeProxyOptions"
	}
	return ""
}

// decodeQuery fills the fields of a connect options struct from query
// parameters named by their JSON names, as upstream's generated
// url.Values conversions do: strings, string lists, bools and integers.
func decodeQuery(q url.Values, obj runtime.Object) error {
	v := reflect.ValueOf(obj).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		values, ok := q[name]
		if !ok || name == "" || name == "-" || len(values) == 0 {
			continue
		}
		fv := v.Field(i)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(values[0])
		case reflect.Bool:
			b, err := strconv.ParseBool(values[0])
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fv.SetBool(b)
		case reflect.Int32, reflect.Int64, reflect.Int:
			n, err := strconv.ParseInt(values[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fv.SetInt(n)
		case reflect.Slice:
			if fv.Type().Elem().Kind() == reflect.String {
				fv.Set(reflect.ValueOf(append([]string(nil), values...)))
			} else if fv.Type().Elem().Kind() == reflect.Int32 {
				out := make([]int32, 0, len(values))
				for _, s := range values {
					n, err := strconv.ParseInt(s, 10, 32)
					if err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					out = append(out, int32(n))
				}
				fv.Set(reflect.ValueOf(out))
			}
		}
	}
	return nil
}
