package conversion

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/webhook"
)

var (
	v1       = schema.GroupVersion{Group: group, Version: "v1"}
	v1alpha1 = schema.GroupVersion{Group: group, Version: "v1alpha1"}
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name      string
		in        []*unstructured.Unstructured
		to        schema.GroupVersion
		want      []*unstructured.Unstructured
		wantSent  int   // objects in the one review sent; 0 = no call
		sameAs    []int // indexes returned as the very same object
		wantDesir string
	}{
		{name: "one object up", in: []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}, to: v1,
			want: []*unstructured.Unstructured{widget("v1", "a", "color", "red")}, wantSent: 1},
		{name: "one object down", in: []*unstructured.Unstructured{widget("v1", "a", "color", "red")}, to: v1alpha1,
			want: []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}, wantSent: 1},
		{name: "mixed list in order, one call",
			in:       []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red"), widget("v1", "b", "color", "blue"), widget("v1alpha1", "c", "colour", "green")},
			to:       v1,
			want:     []*unstructured.Unstructured{widget("v1", "a", "color", "red"), widget("v1", "b", "color", "blue"), widget("v1", "c", "color", "green")},
			wantSent: 2, sameAs: []int{1}},
		{name: "already at the target", in: []*unstructured.Unstructured{widget("v1", "a", "color", "red"), widget("v1", "b", "color", "blue")}, to: v1,
			want: []*unstructured.Unstructured{widget("v1", "a", "color", "red"), widget("v1", "b", "color", "blue")}, sameAs: []int{0, 1}},
		{name: "nothing at all", in: nil, to: v1, want: []*unstructured.Unstructured{}},
		{name: "empty object needs no webhook",
			in:   []*unstructured.Unstructured{{Object: map[string]any{"apiVersion": group + "/v1alpha1", "kind": "Widget"}}},
			to:   v1,
			want: []*unstructured.Unstructured{{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Widget"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHook(t)
			c := h.converter(t)
			before := make([]*unstructured.Unstructured, len(tc.in))
			for i, o := range tc.in {
				before[i] = o.DeepCopy()
			}
			got, err := c.Convert(context.Background(), tc.in, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("converted objects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.in, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("inputs changed (-before +after):\n%s", diff)
			}
			for _, i := range tc.sameAs {
				if got[i] != tc.in[i] {
					t.Errorf("object %d was copied, want it returned as it is", i)
				}
			}
			calls := h.calls()
			switch {
			case tc.wantSent == 0 && len(calls) != 0:
				t.Errorf("webhook called %d times, want none", len(calls))
			case tc.wantSent > 0 && len(calls) != 1:
				t.Fatalf("webhook called %d times, want once", len(calls))
			case tc.wantSent > 0:
				req := calls[0]
				if req.APIVersion != "apiextensions.k8s.io/v1" || req.Kind != "ConversionReview" || req.Request.UID == "" ||
					req.Request.DesiredAPIVersion != tc.to.String() || len(req.Request.Objects) != tc.wantSent {
					t.Errorf("request %s %s uid %q desired %q with %d objects, want v1 ConversionReview to %s with %d",
						req.APIVersion, req.Kind, req.Request.UID, req.Request.DesiredAPIVersion, len(req.Request.Objects), tc.to, tc.wantSent)
				}
			}
		})
	}
}

func TestConvertFreshUIDs(t *testing.T) {
	h := newTestHook(t)
	c := h.converter(t)
	for range 2 {
		if _, err := c.Convert(context.Background(), []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}, v1); err != nil {
			t.Fatal(err)
		}
	}
	calls := h.calls()
	if len(calls) != 2 || calls[0].Request.UID == calls[1].Request.UID {
		t.Errorf("requests reused uid %q", calls[0].Request.UID)
	}
}

// onObject spoils the first converted object of an answer.
func onObject(i int, f func(u *unstructured.Unstructured)) func(*ConversionReview) {
	return func(r *ConversionReview) {
		u := &unstructured.Unstructured{}
		_ = u.UnmarshalJSON(r.Response.ConvertedObjects[i].Raw)
		f(u)
		data, _ := json.Marshal(u.Object)
		r.Response.ConvertedObjects[i].Raw = data
	}
}

func TestConvertMetadata(t *testing.T) {
	h := newTestHook(t)
	c := h.converter(t)
	h.tweak = onObject(0, func(u *unstructured.Unstructured) {
		u.SetResourceVersion("99")
		u.SetGeneration(42)
		u.SetFinalizers([]string{"sneaky"})
		u.SetCreationTimestamp(metav1.Unix(1, 0))
		u.SetLabels(map[string]string{"app": "shop", "converted": "yes"})
		u.SetAnnotations(nil) // removed
	})
	got, err := c.Convert(context.Background(), []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}, v1)
	if err != nil {
		t.Fatal(err)
	}
	want := widget("v1", "a", "color", "red")
	want.SetLabels(map[string]string{"app": "shop", "converted": "yes"})
	want.SetAnnotations(nil)
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("metadata not restored (-want +got):\n%s", diff)
	}
}

func TestConvertErrors(t *testing.T) {
	one := func() []*unstructured.Unstructured {
		return []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}
	}
	two := func() []*unstructured.Unstructured {
		return []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red"), widget("v1alpha1", "b", "colour", "blue")}
	}
	const single = "conversion webhook for stable.example.com/v1alpha1, Kind=Widget"
	const list = "conversion webhook for stable.example.com/v1, Kind=WidgetList"
	tests := []struct {
		name    string
		in      []*unstructured.Unstructured
		to      schema.GroupVersion
		tweak   func(*ConversionReview)
		wantErr string // whole message, or its start when it ends in "…"
	}{
		{name: "uid mismatch", in: one(), tweak: func(r *ConversionReview) { r.Response.UID = "wrong" },
			wantErr: single + ` failed: expected response.uid="…`},
		{name: "no response", in: one(), tweak: func(r *ConversionReview) { r.Response = nil },
			wantErr: single + " failed: no response provided"},
		{name: "wrong review kind", in: one(), tweak: func(r *ConversionReview) { r.Kind = "AdmissionReview" },
			wantErr: single + " failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind=AdmissionReview"},
		{name: "failure with message", in: one(), tweak: func(r *ConversionReview) {
			r.Response.Result = metav1.Status{Status: metav1.StatusFailure, Message: "colour unknown"}
		}, wantErr: single + " failed: colour unknown"},
		{name: "failure without message", in: one(), tweak: func(r *ConversionReview) { r.Response.Result = metav1.Status{Status: metav1.StatusFailure} },
			wantErr: single + " failed: response.result.status was 'Failure', not 'Success'"},
		{name: "wrong count", in: two(), tweak: func(r *ConversionReview) { r.Response.ConvertedObjects = r.Response.ConvertedObjects[:1] },
			wantErr: list + " returned 1 objects, expected 2"},
		{name: "wrong apiVersion", in: one(), tweak: onObject(0, func(u *unstructured.Unstructured) { u.SetAPIVersion(group + "/v1alpha1") }),
			wantErr: single + " returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v1, received stable.example.com/v1alpha1)"},
		{name: "wrong apiVersion in a list", in: two(), tweak: onObject(1, func(u *unstructured.Unstructured) { u.SetAPIVersion("other/v1") }),
			wantErr: list + " returned invalid converted object at index 1: invalid groupVersion (expected stable.example.com/v1, received other/v1)"},
		{name: "wrong kind", in: one(), tweak: onObject(0, func(u *unstructured.Unstructured) { u.SetKind("Gadget") }),
			wantErr: single + " returned invalid object at index 0: invalid kind (expected Widget, received Gadget)"},
		{name: "renamed", in: one(), tweak: onObject(0, func(u *unstructured.Unstructured) { u.SetName("b") }),
			wantErr: single + " returned invalid object: must have the same name: a != b"},
		{name: "renamed in a list", in: two(), tweak: onObject(0, func(u *unstructured.Unstructured) { u.SetNamespace("other") }),
			wantErr: list + " returned invalid converted object at index 0: must have the same namespace: default != other"},
		{name: "new uid", in: one(), tweak: onObject(0, func(u *unstructured.Unstructured) { u.SetUID("x") }),
			wantErr: single + " returned invalid object: must have the same UID: uid-a != x"},
		{name: "invalid label", in: one(), tweak: onObject(0, func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"app": "not valid!"}) }),
			wantErr: single + ` returned invalid metadata: metadata.labels: Invalid value: "not valid!": …`},
		{name: "invalid annotation in a list", in: two(), tweak: onObject(1, func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"bad key!": "v"}) }),
			wantErr: list + ` returned invalid metadata in object at index 1: metadata.annotation: Invalid value: "bad key!": …`},
		{name: "label not a string", in: one(), tweak: onObject(0, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, map[string]any{"app": int64(1)}, "metadata", "labels")
		}), wantErr: single + " returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object"},
		{name: "no metadata", in: one(), tweak: onObject(0, func(u *unstructured.Unstructured) { delete(u.Object, "metadata") }),
			wantErr: single + " returned invalid object: must have the same name: a != "},
		{name: "unparsable object", in: one(), tweak: func(r *ConversionReview) {
			r.Response.ConvertedObjects[0] = runtime.RawExtension{Raw: []byte(`{"spec":{}}`)}
		},
			wantErr: "Object 'Kind' is missing in '{\"spec\":{}}'"},
		{name: "invalid target version", in: one(), to: schema.GroupVersion{Group: group, Version: "v9"},
			wantErr: "request to convert CR to an invalid group/version: stable.example.com/v9"},
		{name: "invalid source version", in: []*unstructured.Unstructured{widget("v9", "a", "colour", "red")},
			wantErr: "request to convert CR from an invalid group/version: stable.example.com/v9"},
		{name: "invalid source version in a list", in: append(two(), widget("v9", "c", "colour", "red")),
			wantErr: "request to convert CR list failed, list index 2 has invalid group/version: stable.example.com/v9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHook(t)
			h.tweak = tc.tweak
			to := tc.to
			if to.Empty() {
				to = v1
			}
			_, err := h.converter(t).Convert(context.Background(), tc.in, to)
			if err == nil {
				t.Fatalf("no error, want %q", tc.wantErr)
			}
			if prefix, cut := strings.CutSuffix(tc.wantErr, "…"); cut && !strings.HasPrefix(err.Error(), prefix) || !cut && err.Error() != tc.wantErr {
				t.Errorf("got error\n  %q\nwant\n  %q", err, tc.wantErr)
			}
		})
	}
}

func TestConvertWebhookUnreachable(t *testing.T) {
	tests := []struct {
		name       string
		code       int // 0: the webhook is down
		wantStatus bool
		wantErr    string
	}{
		{name: "non-2xx", code: 500, wantStatus: true,
			wantErr: `conversion webhook for stable.example.com/v1alpha1, Kind=Widget failed: an error on the server ("boom") has prevented the request from succeeding`},
		{name: "down", wantErr: `conversion webhook for stable.example.com/v1alpha1, Kind=Widget failed: Post "https://127.0.0.1:`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHook(t)
			c := h.converter(t)
			if tc.code == 0 {
				h.srv.Close()
			} else {
				h.srv.Config.Handler = httpError(tc.code, "boom")
			}
			_, err := c.Convert(context.Background(), []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}, v1)
			var callErr *webhook.ErrCallingWebhook
			if !errors.As(err, &callErr) || (callErr.Status != nil) != tc.wantStatus || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Fatalf("got %v (status %v), want ErrCallingWebhook with status %v starting %q", err, callErr != nil && callErr.Status != nil, tc.wantStatus, tc.wantErr)
			}
		})
	}
}

func TestReviewVersions(t *testing.T) {
	tests := []struct {
		accepted    []string
		wantVersion string
		wantErr     string
	}{
		{accepted: []string{"v1", "v1beta1"}, wantVersion: "apiextensions.k8s.io/v1"},
		{accepted: []string{"v2", "v1beta1", "v1"}, wantVersion: "apiextensions.k8s.io/v1beta1"},
		{accepted: []string{"v2"}, wantErr: "no supported conversion review versions"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.accepted, ","), func(t *testing.T) {
			h := newTestHook(t)
			// A v1beta1 answer is not checked for its uid, as upstream.
			h.tweak = func(r *ConversionReview) {
				if r.APIVersion == "apiextensions.k8s.io/v1beta1" {
					r.Response.UID = "ignored-for-v1beta1"
				}
			}
			_, err := h.converter(t, tc.accepted...).Convert(context.Background(), []*unstructured.Unstructured{widget("v1alpha1", "a", "colour", "red")}, v1)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if calls := h.calls(); len(calls) != 1 || calls[0].APIVersion != tc.wantVersion {
				t.Errorf("got %d calls, want one with %s", len(calls), tc.wantVersion)
			}
		})
	}
}

func TestNewWebhookConverterErrors(t *testing.T) {
	h := newTestHook(t)
	tests := []struct {
		name    string
		edit    func(*apiextv1.CustomResourceDefinition)
		wantErr string
	}{
		{name: "no conversion", edit: func(c *apiextv1.CustomResourceDefinition) { c.Spec.Conversion = nil },
			wantErr: "CustomResourceDefinition widgets.stable.example.com does not use the Webhook conversion strategy"},
		{name: "None strategy", edit: func(c *apiextv1.CustomResourceDefinition) { c.Spec.Conversion.Strategy = apiextv1.NoneConverter },
			wantErr: "CustomResourceDefinition widgets.stable.example.com does not use the Webhook conversion strategy"},
		{name: "no client config", edit: func(c *apiextv1.CustomResourceDefinition) { c.Spec.Conversion.Webhook.ClientConfig = nil },
			wantErr: "CustomResourceDefinition widgets.stable.example.com: spec.conversion.webhook.clientConfig is required for the Webhook strategy"},
		{name: "bad CA", edit: func(c *apiextv1.CustomResourceDefinition) {
			c.Spec.Conversion.Webhook.ClientConfig.CABundle = []byte("junk")
		},
			wantErr: `failed calling webhook "conversion_webhook_for_widgets.stable.example.com": unable to load root certificates: unable to parse bytes as PEM block`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := h.crd()
			tc.edit(crd)
			_, err := NewWebhookConverter(crd, webhook.NewClientManager(nil, 0))
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("got %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestClientConfig(t *testing.T) {
	path, port, url := "/convert", int32(8443), "https://hook.example.com/c"
	tests := []struct {
		name string
		in   apiextv1.WebhookClientConfig
		want webhook.ClientConfig
	}{
		{name: "URL", in: apiextv1.WebhookClientConfig{URL: &url, CABundle: []byte("pem")},
			want: webhook.ClientConfig{Name: "conversion_webhook_for_w", URL: url, CABundle: []byte("pem")}},
		{name: "whitespace CA is none", in: apiextv1.WebhookClientConfig{URL: &url, CABundle: []byte(" \n")},
			want: webhook.ClientConfig{Name: "conversion_webhook_for_w", URL: url}},
		{name: "service defaults", in: apiextv1.WebhookClientConfig{Service: &apiextv1.ServiceReference{Namespace: "ns", Name: "hook"}},
			want: webhook.ClientConfig{Name: "conversion_webhook_for_w", Service: &webhook.ServiceReference{Namespace: "ns", Name: "hook", Port: 443}}},
		{name: "service path and port", in: apiextv1.WebhookClientConfig{Service: &apiextv1.ServiceReference{Namespace: "ns", Name: "hook", Path: &path, Port: &port}},
			want: webhook.ClientConfig{Name: "conversion_webhook_for_w", Service: &webhook.ServiceReference{Namespace: "ns", Name: "hook", Path: path, Port: port}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, clientConfig("w", &tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
