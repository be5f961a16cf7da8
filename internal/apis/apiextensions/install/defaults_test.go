package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestSetDefaults(t *testing.T) {
	port := func(p int32) *int32 { return &p }
	none := &CustomResourceConversion{Strategy: NoneConverter}
	tests := []struct {
		name string
		in   CustomResourceDefinition
		want CustomResourceDefinition
	}{
		{
			name: "names, conversion and stored version",
			in: CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{
				Names:    CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
				Versions: []CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true}, {Name: "v1", Served: true, Storage: true}},
			}},
			want: CustomResourceDefinition{
				Spec: CustomResourceDefinitionSpec{
					Names:      CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
					Versions:   []CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true}, {Name: "v1", Served: true, Storage: true}},
					Conversion: none,
				},
				Status: CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
			},
		},
		{
			name: "set values are kept",
			in: CustomResourceDefinition{
				Spec: CustomResourceDefinitionSpec{
					Names:      CustomResourceDefinitionNames{Singular: "thing", Kind: "Widget", ListKind: "Things"},
					Versions:   []CustomResourceDefinitionVersion{{Name: "v1", Storage: true}},
					Conversion: &CustomResourceConversion{Strategy: WebhookConverter, Webhook: &WebhookConversion{ClientConfig: &WebhookClientConfig{Service: &ServiceReference{Name: "s", Port: port(8443)}}}},
				},
				Status: CustomResourceDefinitionStatus{StoredVersions: []string{"v0"}},
			},
			want: CustomResourceDefinition{
				Spec: CustomResourceDefinitionSpec{
					Names:      CustomResourceDefinitionNames{Singular: "thing", Kind: "Widget", ListKind: "Things"},
					Versions:   []CustomResourceDefinitionVersion{{Name: "v1", Storage: true}},
					Conversion: &CustomResourceConversion{Strategy: WebhookConverter, Webhook: &WebhookConversion{ClientConfig: &WebhookClientConfig{Service: &ServiceReference{Name: "s", Port: port(8443)}}}},
				},
				Status: CustomResourceDefinitionStatus{StoredVersions: []string{"v0"}},
			},
		},
		{
			name: "webhook service port",
			in: CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{
				Conversion: &CustomResourceConversion{Strategy: WebhookConverter, Webhook: &WebhookConversion{ClientConfig: &WebhookClientConfig{Service: &ServiceReference{Name: "s"}}}},
			}},
			want: CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{
				Conversion: &CustomResourceConversion{Strategy: WebhookConverter, Webhook: &WebhookConversion{ClientConfig: &WebhookClientConfig{Service: &ServiceReference{Name: "s", Port: port(443)}}}},
			}},
		},
		{
			name: "no kind leaves listKind empty",
			in:   CustomResourceDefinition{},
			want: CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Conversion: none}},
		},
	}
	for _, tt := range tests {
		got := tt.in.DeepCopy()
		SetDefaultsCustomResourceDefinition(got)
		if diff := cmp.Diff(&tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestRegisterDefaults(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := RegisterDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	list := &CustomResourceDefinitionList{Items: []CustomResourceDefinition{{Spec: CustomResourceDefinitionSpec{Names: CustomResourceDefinitionNames{Kind: "A"}}}}}
	scheme.Default(list)
	if got := list.Items[0].Spec.Names.ListKind; got != "AList" {
		t.Errorf("list item listKind = %q, want AList", got)
	}
	crd := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Names: CustomResourceDefinitionNames{Kind: "B"}}}
	scheme.Default(crd)
	if got := crd.Spec.Names.Singular; got != "b" {
		t.Errorf("singular = %q, want b", got)
	}
}
