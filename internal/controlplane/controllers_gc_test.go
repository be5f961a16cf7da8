package controlplane

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	extfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	regfake "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/fake"
	apiregistrationinformers "k8s.io/kube-aggregator/pkg/client/informers/externalversions"
)

// TestGarbageCollectorSharesAPIServicesAndCRDs: the collector's typed
// informers of APIServices and CustomResourceDefinitions are the ones the
// aggregator and the autoregister hook run, not informers of its own.
func TestGarbageCollectorSharesAPIServicesAndCRDs(t *testing.T) {
	si := &sharedInformers{
		factory:      newFanoutFactory(informers.NewSharedInformerFactory(fake.NewClientset(), 0)),
		registration: apiregistrationinformers.NewSharedInformerFactory(regfake.NewSimpleClientset(), 0),
		extensions:   apiextensionsinformers.NewSharedInformerFactory(extfake.NewSimpleClientset(), 0),
	}
	typed := serverTypedInformers{cc: &controllerContext{informers: si}, ctx: context.Background()}
	apiServices, err := typed.ForResource(apiregistrationv1.SchemeGroupVersion.WithResource("apiservices"))
	if err != nil {
		t.Fatal(err)
	}
	if apiServices.Informer().GetIndexer() != si.registration.Apiregistration().V1().APIServices().Informer().GetIndexer() {
		t.Error("the collector's APIService informer is not the aggregator's")
	}
	crds, err := typed.ForResource(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"))
	if err != nil {
		t.Fatal(err)
	}
	if crds.Informer().GetIndexer() != si.extensions.Apiextensions().V1().CustomResourceDefinitions().Informer().GetIndexer() {
		t.Error("the collector's CRD informer is not the shared one")
	}
}
