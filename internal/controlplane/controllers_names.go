package controlplane

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// kcmControllers are kube-controller-manager's controller names (1.37)
// with the short aliases it still accepts in --controllers.
var kcmControllers = map[string][]string{
	"serviceaccount-token-controller":                                {"serviceaccount-token"},
	"endpoints-controller":                                           {"endpoint"},
	"endpointslice-controller":                                       {"endpointslice"},
	"endpointslice-mirroring-controller":                             {"endpointslicemirroring"},
	"replicationcontroller-controller":                               {"replicationcontroller"},
	"pod-garbage-collector-controller":                               {"podgc"},
	"resourcequota-controller":                                       {"resourcequota"},
	"namespace-controller":                                           {"namespace"},
	"serviceaccount-controller":                                      {"serviceaccount"},
	"garbage-collector-controller":                                   {"garbagecollector"},
	"daemonset-controller":                                           {"daemonset"},
	"job-controller":                                                 {"job"},
	"deployment-controller":                                          {"deployment"},
	"replicaset-controller":                                          {"replicaset"},
	"horizontal-pod-autoscaler-controller":                           {"horizontalpodautoscaling"},
	"disruption-controller":                                          {"disruption"},
	"statefulset-controller":                                         {"statefulset"},
	"cronjob-controller":                                             {"cronjob"},
	"certificatesigningrequest-signing-controller":                   {"csrsigning"},
	"certificatesigningrequest-approving-controller":                 {"csrapproving"},
	"certificatesigningrequest-cleaner-controller":                   {"csrcleaner"},
	"podcertificaterequest-cleaner-controller":                       nil,
	"ttl-controller":                                                 {"ttl"},
	"bootstrap-signer-controller":                                    {"bootstrapsigner"},
	"token-cleaner-controller":                                       {"tokencleaner"},
	"node-ipam-controller":                                           {"nodeipam"},
	"node-lifecycle-controller":                                      {"nodelifecycle"},
	"service-lb-controller":                                          {"service"},
	"node-route-controller":                                          {"route"},
	"cloud-node-lifecycle-controller":                                {"cloud-node-lifecycle"},
	"persistentvolume-binder-controller":                             {"persistentvolume-binder"},
	"persistentvolume-attach-detach-controller":                      {"attachdetach"},
	"persistentvolume-expander-controller":                           {"persistentvolume-expander"},
	"clusterrole-aggregation-controller":                             {"clusterrole-aggregation"},
	"persistentvolumeclaim-protection-controller":                    {"pvc-protection"},
	"persistentvolume-protection-controller":                         {"pv-protection"},
	"volumeattributesclass-protection-controller":                    nil,
	"ttl-after-finished-controller":                                  {"ttl-after-finished"},
	"root-ca-certificate-publisher-controller":                       {"root-ca-cert-publisher"},
	"kube-apiserver-serving-clustertrustbundle-publisher-controller": nil,
	"ephemeral-volume-controller":                                    {"ephemeral-volume"},
	"storageversion-garbage-collector-controller":                    {"storage-version-gc"},
	"resourceclaim-controller":                                       {"resource-claim-controller"},
	"device-taint-eviction-controller":                               nil,
	"legacy-serviceaccount-token-cleaner-controller":                 {"legacy-service-account-token-cleaner"},
	"validatingadmissionpolicy-status-controller":                    nil,
	"taint-eviction-controller":                                      nil,
	"service-cidr-controller":                                        nil,
	"storage-version-migrator-controller":                            nil,
	"selinux-warning-controller":                                     nil,
}

// kcmDisabledByDefault are the controllers "*" leaves off, as upstream.
var kcmDisabledByDefault = []string{"bootstrap-signer-controller", "token-cleaner-controller", "selinux-warning-controller"}

// ControllerNames are the controllers kapi runs in-process, in start
// order: what --controllers can switch.
func ControllerNames() []string {
	var names []string
	for _, c := range inProcessControllers() {
		names = append(names, c.name)
	}
	return names
}

// canonicalController resolves a name or an upstream alias.
func canonicalController(name string) (string, bool) {
	if _, ok := kcmControllers[name]; ok {
		return name, true
	}
	for canonical, aliases := range kcmControllers {
		if slices.Contains(aliases, name) {
			return canonical, true
		}
	}
	// A controller kapi runs that upstream does not know (none today)
	// is still switchable by its name.
	return name, slices.Contains(ControllerNames(), name)
}

// ValidateControllers checks a --controllers list as
// kube-controller-manager does: "*", a name, or "-name", where a name is
// a canonical controller name or an alias. Naming a controller kapi does
// not run, to enable it, is refused: kapi would otherwise accept and
// ignore it; disabling one is accepted, since it never runs.
func ValidateControllers(list []string) error {
	_, err := enabledControllers(list)
	return err
}

// enabledControllers is the set of kapi's controllers that list turns on;
// a nil list is "*".
func enabledControllers(list []string) (map[string]bool, error) {
	if list == nil {
		list = []string{"*"}
	}
	kapi := ControllerNames()
	star := false
	explicit := map[string]bool{}
	var errs []error
	for _, item := range list {
		if item == "*" {
			star = true
			continue
		}
		name, disable := strings.CutPrefix(item, "-")
		canonical, known := canonicalController(name)
		switch {
		case name == "*":
			errs = append(errs, fmt.Errorf("--controllers: %q is not in the list of known controllers (to run no controller, pass --controllers= with an empty list)", item))
		case !known:
			errs = append(errs, fmt.Errorf("--controllers: %q is not in the list of known controllers", name))
		case !disable && !slices.Contains(kapi, canonical):
			errs = append(errs, fmt.Errorf("--controllers: %q is not implemented by kapi; kapi runs %s", name, strings.Join(kapi, ", ")))
		default:
			// The first mention decides, as upstream's IsControllerEnabled.
			if _, seen := explicit[canonical]; !seen {
				explicit[canonical] = !disable
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	enabled := map[string]bool{}
	for _, name := range kapi {
		on, seen := explicit[name]
		if !seen {
			on = star && !slices.Contains(kcmDisabledByDefault, name)
		}
		enabled[name] = on
	}
	return enabled, nil
}
