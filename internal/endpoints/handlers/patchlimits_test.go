package handlers

import (
	"context"
	"net/http"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestLimitJSONPatchCopies(t *testing.T) {
	saved := jsonpatch.AccumulatedCopySizeLimit
	t.Cleanup(func() { jsonpatch.AccumulatedCopySizeLimit = saved })
	cases := []struct {
		name         string
		current, set int64
		want         int64
	}{
		{"unlimited takes the body limit", 0, 1 << 20, 1 << 20},
		{"no body limit means the default", 0, 0, DefaultMaxRequestBodyBytes},
		{"a smaller limit wins", 3 << 20, 1 << 20, 1 << 20},
		{"never raised", 1 << 20, 3 << 20, 1 << 20},
	}
	for _, tc := range cases {
		jsonpatch.AccumulatedCopySizeLimit = tc.current
		limitJSONPatchCopies(tc.set)
		if got := jsonpatch.AccumulatedCopySizeLimit; got != tc.want {
			t.Errorf("%s: limit = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A patch whose request ran out of time does no more work: the client has
// its 504 already.
func TestPatchStopsAtDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &patcher{patchType: types.JSONPatchType, patch: []byte(`[{"op":"copy","from":"/data","path":"/data/x"}]`)}
	current := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "u"}}
	_, err := p.update(ctx, current)
	if !apierrors.IsTimeout(err) || apierrors.ReasonForError(err) != metav1.StatusReasonTimeout {
		t.Fatalf("err = %v, want a Timeout", err)
	}
	if code := err.(apierrors.APIStatus).Status().Code; code != http.StatusGatewayTimeout {
		t.Errorf("code = %d, want 504", code)
	}
}
