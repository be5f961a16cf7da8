package install

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestSetDefaults pins the defaults a CRD gets through kapi's scheme:
// upstream's, registered by Install.
func TestSetDefaults(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := Install(scheme); err != nil {
		t.Fatal(err)
	}
	port := func(p int32) *int32 { return &p }
	none := &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	tests := []struct {
		name string
		in   apiextensionsv1.CustomResourceDefinition
		want apiextensionsv1.CustomResourceDefinition
	}{
		{
			name: "names, conversion and stored version",
			in: apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true}, {Name: "v1", Served: true, Storage: true}},
			}},
			want: apiextensionsv1.CustomResourceDefinition{
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{
					Names:      apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
					Versions:   []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true}, {Name: "v1", Served: true, Storage: true}},
					Conversion: none,
				},
				Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
			},
		},
		{
			name: "set values are kept",
			in: apiextensionsv1.CustomResourceDefinition{
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{
					Names:      apiextensionsv1.CustomResourceDefinitionNames{Singular: "thing", Kind: "Widget", ListKind: "Things"},
					Versions:   []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}},
					Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Name: "s", Port: port(8443)}}}},
				},
				Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v0"}},
			},
			want: apiextensionsv1.CustomResourceDefinition{
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{
					Names:      apiextensionsv1.CustomResourceDefinitionNames{Singular: "thing", Kind: "Widget", ListKind: "Things"},
					Versions:   []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}},
					Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Name: "s", Port: port(8443)}}}},
				},
				Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v0"}},
			},
		},
		{
			name: "webhook service port",
			in: apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Name: "s"}}}},
			}},
			want: apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Name: "s", Port: port(443)}}}},
			}},
		},
		{
			name: "no kind leaves listKind empty",
			in:   apiextensionsv1.CustomResourceDefinition{},
			want: apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Conversion: none}},
		},
	}
	for _, tt := range tests {
		got := tt.in.DeepCopy()
		scheme.Default(got)
		if diff := cmp.Diff(&tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestRegisterDefaults(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := Install(scheme); err != nil {
		t.Fatal(err)
	}
	list := &apiextensionsv1.CustomResourceDefinitionList{Items: []apiextensionsv1.CustomResourceDefinition{{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "A"}}}}}
	scheme.Default(list)
	if got := list.Items[0].Spec.Names.ListKind; got != "AList" {
		t.Errorf("list item listKind = %q, want AList", got)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "B"}}}
	scheme.Default(crd)
	if got := crd.Spec.Names.Singular; got != "b" {
		t.Errorf("singular = %q, want b", got)
	}
}
