package cli

import (
	"errors"
	"slices"

	"github.com/kapi-dev/kapi/internal/admission/plugins/noderestriction"
	"github.com/kapi-dev/kapi/internal/controlplane"
)

// mapAdmissionPlugins applies kube-apiserver's admission defaults to the
// flags. Names are upstream's; enabling one kapi lacks is refused by name,
// disabling one is accepted (it changes nothing). kapi serve enables
// NodeRestriction by default; kube-apiserver's default set lacks it, so
// the drop-in disables it unless --enable-admission-plugins names it.
func (o *kubeAPIServerOptions) mapAdmissionPlugins() error {
	if errs := controlplane.ValidateAdmissionPluginNames(o.EnableAdmissionPlugins, o.DisableAdmissionPlugins); len(errs) > 0 {
		return errors.Join(errs...)
	}
	var disable []string
	for _, p := range o.DisableAdmissionPlugins {
		if slices.Contains(controlplane.AdmissionPlugins, p) {
			disable = append(disable, p)
		}
	}
	if !slices.Contains(o.EnableAdmissionPlugins, noderestriction.PluginName) && !slices.Contains(disable, noderestriction.PluginName) {
		disable = append(disable, noderestriction.PluginName)
	}
	o.DisableAdmissionPlugins = disable
	return nil
}
