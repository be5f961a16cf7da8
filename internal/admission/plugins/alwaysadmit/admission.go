// Package alwaysadmit is the AlwaysAdmit admission plugin, which admits
// every request (upstream keeps it, deprecated, for testing).
package alwaysadmit

import (
	"context"

	"github.com/kapi-dev/kapi/internal/admission"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "AlwaysAdmit"

// Plugin admits everything.
type Plugin struct{}

var _ admission.Interface = Plugin{}

// Admit lets the request through unchanged.
func (Plugin) Admit(context.Context, *admission.Attributes) error { return nil }

// Validate lets the request through.
func (Plugin) Validate(context.Context, *admission.Attributes) error { return nil }
