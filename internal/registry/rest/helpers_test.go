package rest_test

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// generatedAlphabet is the alphabet of apimachinery's rand.String.
const generatedAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func configMap(ns, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// statusOf returns the Status of an API error and fails on any other.
func statusOf(t *testing.T, err error) metav1.Status {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("error %v (%T) is not an API status", err, err)
	}
	return status.Status()
}

// wantStatus checks err against an expected code and message; code 0
// expects no error.
func wantStatus(t *testing.T, err error, code int32, message string) {
	t.Helper()
	if code == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %d %q", code, message)
	}
	if s := statusOf(t, err); s.Code != code || s.Message != message {
		t.Fatalf("got %d %q, want %d %q", s.Code, s.Message, code, message)
	}
}
