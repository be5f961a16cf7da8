// Package install builds kapi's scheme: every built-in API group plus the
// meta.k8s.io types the handlers need.
package install

import (
	"fmt"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"

	admissionregistrationinstall "github.com/kapi-dev/kapi/internal/apis/admissionregistration/install"
	apiextensionsinstall "github.com/kapi-dev/kapi/internal/apis/apiextensions/install"
	apiregistrationinstall "github.com/kapi-dev/kapi/internal/apis/apiregistration/install"
	appsinstall "github.com/kapi-dev/kapi/internal/apis/apps/install"
	authenticationinstall "github.com/kapi-dev/kapi/internal/apis/authentication/install"
	authorizationinstall "github.com/kapi-dev/kapi/internal/apis/authorization/install"
	autoscalinginstall "github.com/kapi-dev/kapi/internal/apis/autoscaling/install"
	batchinstall "github.com/kapi-dev/kapi/internal/apis/batch/install"
	certificatesinstall "github.com/kapi-dev/kapi/internal/apis/certificates/install"
	coordinationinstall "github.com/kapi-dev/kapi/internal/apis/coordination/install"
	coreinstall "github.com/kapi-dev/kapi/internal/apis/core/install"
	discoveryinstall "github.com/kapi-dev/kapi/internal/apis/discovery/install"
	eventsinstall "github.com/kapi-dev/kapi/internal/apis/events/install"
	flowcontrolinstall "github.com/kapi-dev/kapi/internal/apis/flowcontrol/install"
	networkinginstall "github.com/kapi-dev/kapi/internal/apis/networking/install"
	nodeinstall "github.com/kapi-dev/kapi/internal/apis/node/install"
	policyinstall "github.com/kapi-dev/kapi/internal/apis/policy/install"
	rbacinstall "github.com/kapi-dev/kapi/internal/apis/rbac/install"
	resourceinstall "github.com/kapi-dev/kapi/internal/apis/resource/install"
	schedulinginstall "github.com/kapi-dev/kapi/internal/apis/scheduling/install"
	storageinstall "github.com/kapi-dev/kapi/internal/apis/storage/install"
	storagemigrationinstall "github.com/kapi-dev/kapi/internal/apis/storagemigration/install"
)

// groupInstallers lists every API group's Install, in registration order.
// A new group adds one line here.
func groupInstallers() []func(*runtime.Scheme) error {
	return []func(*runtime.Scheme) error{
		coreinstall.Install,
		apiextensionsinstall.Install,
		coordinationinstall.Install,
		appsinstall.Install,
		batchinstall.Install,
		autoscalinginstall.Install,
		networkinginstall.Install,
		policyinstall.Install,
		rbacinstall.Install,
		storageinstall.Install,
		discoveryinstall.Install,
		eventsinstall.Install,
		schedulinginstall.Install,
		nodeinstall.Install,
		certificatesinstall.Install,
		admissionregistrationinstall.Install,
		flowcontrolinstall.Install,
		authenticationinstall.Install,
		authorizationinstall.Install,
		resourceinstall.Install,
		storagemigrationinstall.Install,
		apiregistrationinstall.Install,
	}
}

// InstallAll registers everything kapi serves in scheme.
//
// The meta.k8s.io part comes from metainternalversion.AddToScheme, which
// registers:
//   - meta.k8s.io/v1 and v1beta1 Table, TableOptions,
//     PartialObjectMetadata and PartialObjectMetadataList (as=Table and
//     as=PartialObjectMetadata responses; kubectl also asks for v1beta1),
//   - the meta.k8s.io/v1 option types (ListOptions, GetOptions,
//     DeleteOptions, CreateOptions, UpdateOptions, PatchOptions,
//     WatchEvent) and the unversioned Status, APIVersions, APIGroup,
//     APIGroupList and APIResourceList,
//   - the internal metainternalversion.ListOptions with its conversion from
//     metav1.ListOptions, so runtime.NewParameterCodec(scheme) decodes a
//     request's query into the internal ListOptions with parsed label and
//     field selectors.
//
// Each group's install registers its own options under its group version
// (metav1.AddToGroupVersion), so query parameters decode for any served
// group version.
func InstallAll(scheme *runtime.Scheme) error {
	if err := metainternalversion.AddToScheme(scheme); err != nil {
		return fmt.Errorf("meta.k8s.io: %w", err)
	}
	for _, install := range groupInstallers() {
		if err := install(scheme); err != nil {
			return err
		}
	}
	return nil
}
