package kubebuilder

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// The API a kubebuilder project would generate under api/v1, written by
// hand (deepcopy included) to keep the suite one package.

// GroupVersion is the group and version of Guestbook.
var GroupVersion = schema.GroupVersion{Group: "webapp.kapi.dev", Version: "v1"}

// GuestbookSpec is what the user asks for.
type GuestbookSpec struct {
	Message  string `json:"message"`
	Replicas *int32 `json:"replicas,omitempty"`
}

// GuestbookStatus is what the reconciler observed.
type GuestbookStatus struct {
	Replicas           int32              `json:"replicas,omitempty"`
	Selector           string             `json:"selector,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// Guestbook is the custom resource of the suite.
type Guestbook struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GuestbookSpec   `json:"spec,omitempty"`
	Status GuestbookStatus `json:"status,omitempty"`
}

// GuestbookList is a list of Guestbooks.
type GuestbookList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Guestbook `json:"items"`
}

func (in *Guestbook) DeepCopyInto(out *Guestbook) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Replicas != nil {
		out.Spec.Replicas = new(int32)
		*out.Spec.Replicas = *in.Spec.Replicas
	}
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

func (in *Guestbook) DeepCopy() *Guestbook {
	if in == nil {
		return nil
	}
	out := new(Guestbook)
	in.DeepCopyInto(out)
	return out
}

func (in *Guestbook) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *GuestbookList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := &GuestbookList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Guestbook, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// newScheme holds the built-in types and Guestbook, as a kubebuilder
// project's cmd/main.go builds it.
func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	b := &scheme.Builder{GroupVersion: GroupVersion}
	b.Register(&Guestbook{}, &GuestbookList{})
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, b.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
