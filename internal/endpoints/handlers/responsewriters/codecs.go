package responsewriters

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// NewCodecFactory is serializer.NewCodecFactory for serving: its JSON and
// protobuf encoders write a list item by item into the response (as
// kube-apiserver does with StreamingCollectionEncodingToJSON and
// ToProtobuf, on by default since 1.33), with the same bytes as encoding
// the whole list at once. Pretty JSON and YAML still encode whole bodies.
func NewCodecFactory(scheme *runtime.Scheme, mutators ...serializer.CodecFactoryOptionsMutator) serializer.CodecFactory {
	mutators = append(mutators[:len(mutators):len(mutators)], serializer.WithStreamingCollectionEncodingToJSON(), serializer.WithStreamingCollectionEncodingToProtobuf())
	return serializer.NewCodecFactory(scheme, mutators...)
}
