package handlers

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

type warnings []string

func (w *warnings) AddWarning(_, text string) { *w = append(*w, text) }

// TestGuardManagedFields: entries admission breaks are put back with a
// warning; entries the field manager wrote and admission left alone are
// trusted without decoding, so even undecodable ones pass unwarned then
// (they cannot come from the field manager), while the same entries from
// a client are checked.
func TestGuardManagedFields(t *testing.T) {
	valid := func() []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{
			Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)},
		}}
	}
	broken := func() []metav1.ManagedFieldsEntry {
		e := valid()
		e[0].FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:data":`)}
		return e
	}
	renamed := func() []metav1.ManagedFieldsEntry {
		e := valid()
		e[0].Manager = "other"
		return e
	}
	tests := []struct {
		name        string
		start       []metav1.ManagedFieldsEntry
		encoded     bool
		admitted    []metav1.ManagedFieldsEntry // nil: admission leaves them
		wantManager string
		wantRaw     string
		wantWarning bool
	}{
		{name: "encoded, untouched", start: valid(), encoded: true, wantManager: "m", wantRaw: `{"f:data":{}}`},
		{name: "encoded, broken by admission", start: valid(), encoded: true, admitted: broken(), wantManager: "m", wantRaw: `{"f:data":{}}`, wantWarning: true},
		{name: "encoded, changed validly by admission", start: valid(), encoded: true, admitted: renamed(), wantManager: "other", wantRaw: `{"f:data":{}}`},
		{name: "encoded, re-decoded equal by admission", start: valid(), encoded: true, admitted: valid(), wantManager: "m", wantRaw: `{"f:data":{}}`},
		{name: "from the client, broken and untouched", start: broken(), wantManager: "m", wantRaw: `{"f:data":`, wantWarning: true},
		{name: "trusted when encoded and untouched", start: broken(), encoded: true, wantManager: "m", wantRaw: `{"f:data":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got warnings
			ctx := warning.WithRecorder(context.Background(), &got)
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: tt.start}}
			err := guardManagedFields(ctx, cm, tt.encoded, func() error {
				if tt.admitted != nil {
					cm.ManagedFields = tt.admitted
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != tt.wantManager || string(cm.ManagedFields[0].FieldsV1.Raw) != tt.wantRaw {
				t.Errorf("managedFields = %+v, want manager %q with %s", cm.ManagedFields, tt.wantManager, tt.wantRaw)
			}
			if (len(got) > 0) != tt.wantWarning {
				t.Errorf("warnings = %q, want a warning: %v", got, tt.wantWarning)
			}
		})
	}
}

func TestSameManagedFields(t *testing.T) {
	now := metav1.Now()
	later := metav1.NewTime(now.Add(1e9))
	entry := metav1.ManagedFieldsEntry{Manager: "m", Operation: "Update", APIVersion: "v1", Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{}`)}}
	with := func(f func(*metav1.ManagedFieldsEntry)) []metav1.ManagedFieldsEntry {
		e := entry
		f(&e)
		return []metav1.ManagedFieldsEntry{e}
	}
	base := []metav1.ManagedFieldsEntry{entry}
	tests := []struct {
		name string
		b    []metav1.ManagedFieldsEntry
		want bool
	}{
		{"same", with(func(*metav1.ManagedFieldsEntry) {}), true},
		{"equal copies", with(func(e *metav1.ManagedFieldsEntry) {
			e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{}`)}
			t := now
			e.Time = &t
		}), true},
		{"manager", with(func(e *metav1.ManagedFieldsEntry) { e.Manager = "x" }), false},
		{"operation", with(func(e *metav1.ManagedFieldsEntry) { e.Operation = "Apply" }), false},
		{"apiVersion", with(func(e *metav1.ManagedFieldsEntry) { e.APIVersion = "v2" }), false},
		{"fieldsType", with(func(e *metav1.ManagedFieldsEntry) { e.FieldsType = "FieldsV2" }), false},
		{"subresource", with(func(e *metav1.ManagedFieldsEntry) { e.Subresource = "status" }), false},
		{"time", with(func(e *metav1.ManagedFieldsEntry) { e.Time = &later }), false},
		{"no time", with(func(e *metav1.ManagedFieldsEntry) { e.Time = nil }), false},
		{"fields", with(func(e *metav1.ManagedFieldsEntry) { e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:a":{}}`)} }), false},
		{"no fields", with(func(e *metav1.ManagedFieldsEntry) { e.FieldsV1 = nil }), false},
		{"fewer", nil, false},
		{"more", append(with(func(*metav1.ManagedFieldsEntry) {}), entry), false},
	}
	for _, tt := range tests {
		if got := sameManagedFields(base, tt.b); got != tt.want {
			t.Errorf("%s: sameManagedFields = %v, want %v", tt.name, got, tt.want)
		}
	}
}
