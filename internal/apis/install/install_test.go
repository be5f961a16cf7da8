package install

import (
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := InstallAll(scheme); err != nil {
		t.Fatalf("InstallAll: %v", err)
	}
	return scheme
}

// sampleObjects returns one filled object per kind of the slice, with its
// group version.
func sampleObjects() []struct {
	gv  schema.GroupVersion
	obj runtime.Object
} {
	created := metav1.NewTime(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC))
	meta := metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u1", ResourceVersion: "7", CreationTimestamp: created, Labels: map[string]string{"k": "v"}}
	holder := "node-1"
	duration := int32(40)
	renew := metav1.NewMicroTime(time.Date(2024, 5, 1, 10, 0, 1, 123456000, time.UTC))
	core := corev1.SchemeGroupVersion
	coord := coordinationv1.SchemeGroupVersion
	return []struct {
		gv  schema.GroupVersion
		obj runtime.Object
	}{
		{core, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a": "b"}, BinaryData: map[string][]byte{"c": {0, 1}}}},
		{core, &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("b")}}},
		{core, &corev1.ServiceAccount{ObjectMeta: meta, Secrets: []corev1.ObjectReference{{Name: "s"}}}},
		{core, &corev1.Event{ObjectMeta: meta, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "ns"}, Reason: "Started", Count: 2, FirstTimestamp: created, LastTimestamp: created, Type: "Normal"}},
		{core, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", CreationTimestamp: created}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}},
		{coord, &coordinationv1.Lease{ObjectMeta: meta, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, RenewTime: &renew}}},
		{core, &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.ConfigMap{{ObjectMeta: meta}}}},
		{core, &corev1.SecretList{Items: []corev1.Secret{{ObjectMeta: meta, Type: corev1.SecretTypeOpaque}}}},
		{core, &corev1.ServiceAccountList{Items: []corev1.ServiceAccount{{ObjectMeta: meta}}}},
		{core, &corev1.EventList{Items: []corev1.Event{{ObjectMeta: meta}}}},
		{core, &corev1.NamespaceList{Items: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}}}},
		{coord, &coordinationv1.LeaseList{Items: []coordinationv1.Lease{{ObjectMeta: meta}}}},
		{metav1.SchemeGroupVersion, &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Name", Type: "string"}}}},
	}
}

// TestRoundTrip encodes every kind with its group version and decodes it
// back, in JSON and in protobuf, and expects the same (defaulted) object.
func TestRoundTrip(t *testing.T) {
	scheme := newScheme(t)
	codecs := serializer.NewCodecFactory(scheme)
	serializers := map[string]runtime.Serializer{
		"json":     json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{}),
		"protobuf": protobuf.NewSerializer(scheme, scheme),
	}
	for _, sample := range sampleObjects() {
		for format, s := range serializers {
			if format == "protobuf" && sample.gv == metav1.SchemeGroupVersion {
				continue // Table cells are JSON-only upstream.
			}
			gvks, _, err := scheme.ObjectKinds(sample.obj)
			if err != nil {
				t.Fatalf("ObjectKinds(%T): %v", sample.obj, err)
			}
			t.Run(format+"/"+gvks[0].Kind, func(t *testing.T) {
				codec := codecs.CodecForVersions(s, s, sample.gv, sample.gv)
				data, err := runtime.Encode(codec, sample.obj)
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				got, err := runtime.Decode(codec, data)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				// Decoding defaults the object, as the server's decoders do.
				want := sample.obj.DeepCopyObject()
				scheme.Default(want)
				want.GetObjectKind().SetGroupVersionKind(sample.gv.WithKind(gvks[0].Kind))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("round trip (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestListOptionsFromQuery decodes query parameters into the internal
// ListOptions through the scheme, as the list handler does.
func TestListOptionsFromQuery(t *testing.T) {
	codec := runtime.NewParameterCodec(newScheme(t))
	query := url.Values{"labelSelector": {"app=web"}, "fieldSelector": {"type=Opaque"}, "limit": {"5"}, "watch": {"true"}}
	var opts metainternalversion.ListOptions
	if err := codec.DecodeParameters(query, metav1.SchemeGroupVersion, &opts); err != nil {
		t.Fatalf("DecodeParameters: %v", err)
	}
	if opts.LabelSelector.String() != "app=web" || opts.FieldSelector.String() != "type=Opaque" || opts.Limit != 5 || !opts.Watch {
		t.Errorf("got label=%q field=%q limit=%d watch=%v", opts.LabelSelector, opts.FieldSelector, opts.Limit, opts.Watch)
	}
}

func TestFieldLabelConversion(t *testing.T) {
	scheme := newScheme(t)
	tests := []struct {
		gvk     schema.GroupVersionKind
		label   string
		wantErr string
	}{
		{corev1.SchemeGroupVersion.WithKind("Secret"), "type", ""},
		{corev1.SchemeGroupVersion.WithKind("Secret"), "data", "field label not supported: data"},
		{corev1.SchemeGroupVersion.WithKind("Event"), "involvedObject.uid", ""},
		{corev1.SchemeGroupVersion.WithKind("Event"), "reportingComponent", ""},
		{corev1.SchemeGroupVersion.WithKind("Namespace"), "status.phase", ""},
		{corev1.SchemeGroupVersion.WithKind("Namespace"), "metadata.namespace", "field label not supported: metadata.namespace"},
		{corev1.SchemeGroupVersion.WithKind("ConfigMap"), "metadata.namespace", ""},
		{corev1.SchemeGroupVersion.WithKind("ConfigMap"), "data", `"data" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{coordinationv1.SchemeGroupVersion.WithKind("Lease"), "metadata.name", ""},
	}
	for _, tt := range tests {
		_, _, err := scheme.ConvertFieldLabel(tt.gvk, tt.label, "x")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.wantErr {
			t.Errorf("%s %s: error %q, want %q", tt.gvk.Kind, tt.label, gotErr, tt.wantErr)
		}
	}
}

func TestDefaultsRegistered(t *testing.T) {
	scheme := newScheme(t)
	secret := &corev1.Secret{}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}
	scheme.Default(secret)
	scheme.Default(ns)
	if secret.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret type = %q, want Opaque", secret.Type)
	}
	if ns.Labels[corev1.LabelMetadataName] != "team" || ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("namespace labels=%v phase=%q", ns.Labels, ns.Status.Phase)
	}
	if got := scheme.PrioritizedVersionsForGroup("coordination.k8s.io"); len(got) != 1 || got[0] != coordinationv1.SchemeGroupVersion {
		t.Errorf("coordination priority = %v", got)
	}
}
