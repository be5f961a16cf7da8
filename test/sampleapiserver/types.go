package sampleapiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group the server serves.
const GroupName = "wardle.example.com"

// SchemeGroupVersion is the one group version the server serves.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Resource is the flunders resource of the group.
var Resource = SchemeGroupVersion.WithResource("flunders")

// Flunder is the server's one kind, namespaced, as upstream's sample.
type Flunder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec FlunderSpec `json:"spec,omitempty"`
}

// FlunderSpec is what a Flunder refers to.
type FlunderSpec struct {
	// Reference names another flunder or fischer, as upstream's sample.
	Reference string `json:"reference,omitempty"`
}

// FlunderList is a list of Flunders.
type FlunderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Flunder `json:"items"`
}

// DeepCopyInto copies f into out; the spec holds only values.
func (f *Flunder) DeepCopyInto(out *Flunder) {
	*out = *f
	f.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopy returns a copy of f.
func (f *Flunder) DeepCopy() *Flunder {
	if f == nil {
		return nil
	}
	out := new(Flunder)
	f.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (f *Flunder) DeepCopyObject() runtime.Object { return f.DeepCopy() }

// DeepCopyInto copies l into out.
func (l *FlunderList) DeepCopyInto(out *FlunderList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Flunder, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l.
func (l *FlunderList) DeepCopy() *FlunderList {
	if l == nil {
		return nil
	}
	out := new(FlunderList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *FlunderList) DeepCopyObject() runtime.Object { return l.DeepCopy() }

// newScheme registers the types under v1alpha1 and, the same Go types,
// as the group's internal version: the server has one version, so its
// hub is that version and nothing converts. It also registers what every
// generic server needs: the meta types of the group and of the
// unversioned v1 (options, Status, discovery documents).
func newScheme() *runtime.Scheme {
	s := servedScheme()
	internal := schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}
	s.AddKnownTypes(internal, &Flunder{}, &FlunderList{})
	return s
}

// servedScheme is newScheme without the internal version: the
// group-version-kinds the OpenAPI models name, which must not list
// __internal although the Go types are registered there too.
func servedScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(SchemeGroupVersion, &Flunder{}, &FlunderList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	v1 := schema.GroupVersion{Version: "v1"}
	metav1.AddToGroupVersion(s, v1)
	s.AddUnversionedTypes(v1, &metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	return s
}
