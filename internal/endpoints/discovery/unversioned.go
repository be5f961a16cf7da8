package discovery

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindOnlySerializer encodes objects with a kind and no apiVersion: the
// legacy core group's discovery documents (/api, /api/v1) have always
// looked like that, and clients compare them byte for byte in tests.
type kindOnlySerializer struct {
	runtime.NegotiatedSerializer
	typer runtime.ObjectTyper
}

// EncoderForVersion ignores the version: the document carries none.
func (s kindOnlySerializer) EncoderForVersion(e runtime.Encoder, _ runtime.GroupVersioner) runtime.Encoder {
	return kindOnlyEncoder{encoder: e, typer: s.typer}
}

type kindOnlyEncoder struct {
	encoder runtime.Encoder
	typer   runtime.ObjectTyper
}

func (e kindOnlyEncoder) Encode(obj runtime.Object, w io.Writer) error {
	kinds, _, err := e.typer.ObjectKinds(obj)
	if err != nil {
		return err
	}
	if len(kinds) == 0 {
		return fmt.Errorf("no kind registered for %T", obj)
	}
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Kind: kinds[0].Kind})
	return e.encoder.Encode(obj, w)
}

func (e kindOnlyEncoder) Identifier() runtime.Identifier {
	id, _ := json.Marshal(map[string]string{"name": "kindOnly", "encoder": string(e.encoder.Identifier())})
	return runtime.Identifier(id)
}
