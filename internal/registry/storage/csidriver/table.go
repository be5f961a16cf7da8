package csidriver

import (
	"strings"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY
// TOKENREQUESTS REQUIRESREPUBLISH MODES AGE.
func Table() *printers.Table[*storagev1.CSIDriver] {
	doc := storagev1.CSIDriverSpec{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "AttachRequired", Type: "boolean", Description: doc["attachRequired"]},
		{Name: "PodInfoOnMount", Type: "boolean", Description: doc["podInfoOnMount"]},
		{Name: "StorageCapacity", Type: "boolean", Description: doc["storageCapacity"]},
		{Name: "TokenRequests", Type: "string", Description: doc["tokenRequests"]},
		{Name: "RequiresRepublish", Type: "boolean", Description: doc["requiresRepublish"]},
		{Name: "Modes", Type: "string", Description: doc["volumeLifecycleModes"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(d *storagev1.CSIDriver, now time.Time) []any {
		modes := make([]string, 0, len(d.Spec.VolumeLifecycleModes))
		for _, m := range d.Spec.VolumeLifecycleModes {
			modes = append(modes, string(m))
		}
		modeCell := strings.Join(modes, ",")
		if modeCell == "" {
			modeCell = "<none>"
		}
		tokens := "<unset>"
		if d.Spec.TokenRequests != nil {
			audiences := make([]string, 0, len(d.Spec.TokenRequests))
			for _, t := range d.Spec.TokenRequests {
				audiences = append(audiences, t.Audience)
			}
			tokens = strings.Join(audiences, ",")
		}
		return []any{
			d.Name,
			boolOr(d.Spec.AttachRequired, true),
			boolOr(d.Spec.PodInfoOnMount, false),
			boolOr(d.Spec.StorageCapacity, false),
			tokens,
			boolOr(d.Spec.RequiresRepublish, false),
			modeCell,
			printers.Age(d.CreationTimestamp, now),
		}
	})
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
