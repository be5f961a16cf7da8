package handlers

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// limitedReadBody reads the body, failing with 413 past limit bytes
// (limit <= 0: no limit).
func limitedReadBody(req *http.Request, limit int64) ([]byte, error) {
	defer req.Body.Close()
	if limit <= 0 {
		return readAll(req.Body, req.ContentLength)
	}
	lr := &io.LimitedReader{R: req.Body, N: limit + 1}
	data, err := readAll(lr, min(req.ContentLength, limit+1))
	if err != nil {
		return nil, err
	}
	if lr.N <= 0 {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	return data, nil
}

// readAll reads r to its end into one buffer sized for the sizeHint
// bytes announced (the Content-Length; -1 when unknown), where io.ReadAll
// starts small and grows step by step. A wrong hint costs only growth.
func readAll(r io.Reader, sizeHint int64) ([]byte, error) {
	if sizeHint <= 0 || sizeHint > maxPresizedBody {
		return io.ReadAll(r)
	}
	buf := bytes.NewBuffer(make([]byte, 0, sizeHint+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// maxPresizedBody bounds the buffer a Content-Length may reserve up front.
const maxPresizedBody = 4 << 20

// fieldValidation is the directive of the fieldValidation query parameter;
// Warn when unset.
func fieldValidation(directive string) string {
	if directive == "" {
		return metav1.FieldValidationWarn
	}
	return directive
}

// decodeBody decodes a create or update body into a new object of the
// endpoint's kind. Strict decoding (unknown or duplicate fields) fails the
// request under Strict and becomes warnings under Warn.
func (s *RequestScope) decodeBody(req *http.Request, body []byte, into runtime.Object, directive string) (runtime.Object, error) {
	info, err := negotiation.NegotiateInputSerializer(req, false, s.Serializer)
	if err != nil {
		return nil, err
	}
	serializer := info.Serializer
	if directive != metav1.FieldValidationIgnore && info.StrictSerializer != nil {
		serializer = info.StrictSerializer
	}
	defaultGVK := s.Kind
	decoder := s.Serializer.DecoderToVersion(s.fastBodyDecoder(serializer), s.Kind.GroupVersion())
	obj, gvk, err := decoder.Decode(body, &defaultGVK, into)
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict || obj == nil || directive != metav1.FieldValidationWarn {
			return nil, transformDecodeError(s.Typer, err, into, gvk, body)
		}
		addStrictDecodingWarnings(req.Context(), strictErr.Errors())
	}
	if gv := gvk.GroupVersion(); gv != s.Kind.GroupVersion() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf(
			"the API version in the data (%s) does not match the expected API version (%s)", gv, s.Kind.GroupVersion()))
	}
	s.defaultHub(obj)
	return obj, nil
}

// transformDecodeError makes a decoding failure a 400 that names the kind
// expected and, when the body had no recognizable kind, shows its start.
func transformDecodeError(typer runtime.ObjectTyper, baseErr error, into runtime.Object, gvk *schema.GroupVersionKind, body []byte) error {
	kinds, _, err := typer.ObjectKinds(into)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	want := kinds[0].Kind
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, want, baseErr))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", want, baseErr, summarizeData(body, 30)))
}

// summarizeData shows the start of a body: as text when it looks like
// JSON, in hex otherwise.
func summarizeData(data []byte, maxLength int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > maxLength {
			return string(data[:maxLength]) + " ..."
		}
		return string(data)
	default:
		if len(data) > maxLength {
			return hex.EncodeToString(data[:maxLength]) + " ..."
		}
		return hex.EncodeToString(data)
	}
}

// The YAML decoder reports all strict errors in one error under one of
// these prefixes; each line becomes its own warning.
const (
	yamlShortPrefix = "yaml: unmarshal errors:\n"
	yamlLongPrefix  = "error converting YAML to JSON: yaml: unmarshal errors:\n"
)

// addStrictDecodingWarnings turns strict decoding errors into warnings,
// one per problem.
func addStrictDecodingWarnings(ctx context.Context, errs []error) {
	for _, e := range errs {
		for _, w := range splitYAMLWarnings(e.Error()) {
			warning.AddWarning(ctx, "", w)
		}
	}
}

func splitYAMLWarnings(msg string) []string {
	rest, ok := strings.CutPrefix(msg, yamlShortPrefix)
	if !ok {
		rest, ok = strings.CutPrefix(msg, yamlLongPrefix)
	}
	if !ok {
		return []string{msg}
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}
