package conversion

import (
	"errors"
	"fmt"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// reviewGroup is the group of the ConversionReview wire type.
const reviewGroup = "apiextensions.k8s.io"

// The wire types of a conversion webhook call are upstream's
// apiextensions.k8s.io/v1 ones. v1beta1 reviews have the same JSON shape,
// so the same types carry them, with the v1beta1 apiVersion.
type (
	ConversionReview   = apiextv1.ConversionReview
	ConversionRequest  = apiextv1.ConversionRequest
	ConversionResponse = apiextv1.ConversionResponse
)

// reviewVersion picks the first ConversionReview version of the CRD's list
// that kapi speaks, as upstream does.
func reviewVersion(accepted []string) (string, error) {
	for _, v := range accepted {
		if v == "v1" || v == "v1beta1" {
			return v, nil
		}
	}
	return "", errors.New("no supported conversion review versions")
}

// newReview is the request of one conversion call.
func newReview(version string, uid types.UID, desired string, objs []*unstructured.Unstructured) (*ConversionReview, error) {
	raws := make([]runtime.RawExtension, len(objs))
	for i, o := range objs {
		data, err := o.MarshalJSON()
		if err != nil {
			return nil, err
		}
		raws[i].Raw = data
	}
	return &ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: reviewGroup + "/" + version, Kind: "ConversionReview"},
		Request:  &ConversionRequest{UID: uid, DesiredAPIVersion: desired, Objects: raws},
	}, nil
}

// convertedObjects checks an answer and returns its objects. Upstream never
// checked the kind or uid of v1beta1 answers, so neither does kapi.
func convertedObjects(version string, uid types.UID, review *ConversionReview) ([]runtime.RawExtension, error) {
	if version == "v1" {
		want := schema.GroupVersionKind{Group: reviewGroup, Version: "v1", Kind: "ConversionReview"}
		if got := review.GroupVersionKind(); got != want {
			return nil, fmt.Errorf("expected webhook response of %v, got %v", want, got)
		}
	}
	if review.Response == nil {
		return nil, errors.New("no response provided")
	}
	if version == "v1" && review.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, review.Response.UID)
	}
	if result := review.Response.Result; result.Status != metav1.StatusSuccess {
		if result.Message != "" {
			return nil, errors.New(result.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", result.Status)
	}
	return review.Response.ConvertedObjects, nil
}
