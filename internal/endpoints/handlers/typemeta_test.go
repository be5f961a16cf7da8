package handlers

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/pbdecode"
)

var typeMetaCases = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`,
	`  {"kind":"Pod" , "apiVersion" : "apps/v1"}  `,
	`{}`,
	`{"metadata":{}}`,
	`{"KIND":"Upper","ApiVersion":"x/v2"}`,
	`{"kind":"First","kind":"Last"}`,
	`{"kind":"First","Kind":"Last"}`,
	`{"apiVersion":"a/b/c","kind":"K"}`,
	`{"apiVersion":"","kind":""}`,
	`{"kind":"K","spec":{"list":[1,-2.5e+3,0.1,true,false,null,"s\"\\\/\b\f\n\r\t\u00e9",{"a":[[]]}]}}`,
	`{"kind":"K","x":"non-ascii é ünïcode"}`,
	`{"kind":"K\u0041"}`,
	`{"kind":"Kß"}`,
	`{"kind":null}`,
	`{"kind":5}`,
	`{"kind":{"x":1}}`,
	`{"k\u0069nd":"Escaped"}`,
	"{\"kind\":\"K\",\"x\":\"bad\x01control\"}",
	`{"kind":"K",}`,
	`{"kind":"K"`,
	`{"kind":"K"} x`,
	`{"kind":"K","n":01}`,
	`{"kind":"K","n":1.}`,
	`{"kind":"K","n":-}`,
	`{"kind":"K","n":1e}`,
	`{"kind":"K","b":tru}`,
	`{"kind":"K","s":"\x"}`,
	`{"kind":"K","s":"\u12"}`,
	`{"kind":"K","a":[1,]}`,
	`{"kind":"K","o":{"a"}}`,
	`[]`,
	`null`,
	`"kind"`,
	``,
	`{"apiVersion":"v1","kind":"K","deep":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`,
}

// TestTypeMetaFactoryIsTheDefault pins that the quick pass gives what
// apimachinery's default meta factory gives, errors included, on valid,
// odd and invalid bodies.
func TestTypeMetaFactoryIsTheDefault(t *testing.T) {
	for _, body := range typeMetaCases {
		checkTypeMeta(t, []byte(body))
	}
}

// TestScanTypeMetaTakesTheCommonCase: the quick pass must answer for an
// ordinary body, not hand everything to the default.
func TestScanTypeMetaTakesTheCommonCase(t *testing.T) {
	apiVersion, kind, ok := scanTypeMeta([]byte(typeMetaCases[0]))
	if !ok || apiVersion != "v1" || kind != "ConfigMap" {
		t.Errorf("scanTypeMeta = %q, %q, %v; want v1, ConfigMap, true", apiVersion, kind, ok)
	}
}

func FuzzTypeMetaFactory(f *testing.F) {
	for _, body := range typeMetaCases {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkTypeMeta(t, body)
	})
}

func checkTypeMeta(t *testing.T, body []byte) {
	t.Helper()
	want, wantErr := jsonserializer.DefaultMetaFactory.Interpret(body)
	got, gotErr := typeMetaFactory{}.Interpret(body)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%q: error %v, want %v", body, gotErr, wantErr)
	}
	if wantErr == nil && *got != *want {
		t.Fatalf("%q: %v, want %v", body, *got, *want)
	}
	if _, _, ok := scanTypeMeta(body); ok && !json.Valid(body) {
		t.Fatalf("%q: the quick pass accepted invalid JSON", body)
	}
}

func TestFastBodyDecoderReplacesOnlyTheSchemesJSONAndProtobuf(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	codecs := responsewriters.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	yamlInfo, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeYAML)
	pbInfo, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	s := &RequestScope{Creater: scheme, Typer: scheme}
	for _, chosen := range []runtime.Serializer{info.Serializer, info.StrictSerializer, pbInfo.Serializer} {
		got := s.fastBodyDecoder(chosen)
		if got == chosen || got.Identifier() != chosen.Identifier() {
			t.Errorf("%s: got %v, want the quick serializer with the same identifier", chosen.Identifier(), got.Identifier())
		}
	}
	if _, ok := s.fastBodyDecoder(pbInfo.Serializer).(*pbdecode.Serializer); !ok {
		t.Error("protobuf bodies are not decoded by pbdecode")
	}
	if got := s.fastBodyDecoder(yamlInfo.Serializer); got != yamlInfo.Serializer {
		t.Error("the YAML serializer was replaced")
	}
	other := &RequestScope{Creater: runtime.NewScheme(), Typer: scheme}
	for _, chosen := range []runtime.Serializer{info.Serializer, pbInfo.Serializer} {
		if got := other.fastBodyDecoder(chosen); got != chosen {
			t.Errorf("%s: a scope whose creater is not its typer's scheme got the quick serializer", chosen.Identifier())
		}
	}
}

func BenchmarkDecodeConfigMapBody(b *testing.B) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-00001","labels":{"kapi-bench":"x"}},"data":{"data":"` + strings.Repeat("abcdefghijklmnopqrstuvwxyz", 40) + `"}}`)
	codecs := responsewriters.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	s := &RequestScope{Creater: scheme, Typer: scheme}
	for name, ser := range map[string]runtime.Serializer{"default": info.StrictSerializer, "quick": s.fastBodyDecoder(info.StrictSerializer)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := ser.Decode(body, nil, &corev1.ConfigMap{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
