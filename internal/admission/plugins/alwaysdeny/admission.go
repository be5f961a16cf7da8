// Package alwaysdeny is the AlwaysDeny admission plugin, which refuses
// every write (upstream keeps it, deprecated, for testing).
package alwaysdeny

import (
	"context"
	"errors"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "AlwaysDeny"

// Plugin refuses everything.
type Plugin struct{}

var _ admission.Interface = Plugin{}

var errDenied = errors.New("admission control is denying all modifications")

// Admit refuses the request with upstream's 403.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	return podutil.Forbidden(a, errDenied)
}

// Validate refuses the request with upstream's 403.
func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	return podutil.Forbidden(a, errDenied)
}
