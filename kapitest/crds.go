package kapitest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// crdTimeout bounds the wait for CRDs to be established and served.
const crdTimeout = 30 * time.Second

// crdExtensions are the files a CRD folder is read for.
var crdExtensions = []string{".yaml", ".yml", ".json"}

// installCRDs creates the CRDs read from paths and the given objects, and
// waits until each is Established and each served version lists the
// resource in discovery: what a client needs before it uses them.
func installCRDs(cfg *rest.Config, paths []string, crds []*apiextensionsv1.CustomResourceDefinition) error {
	for _, p := range paths {
		read, err := readCRDPath(p)
		if err != nil {
			return err
		}
		crds = append(crds, read...)
	}
	if len(crds) == 0 {
		return nil
	}
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), crdTimeout)
	defer cancel()
	for _, crd := range crds {
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
		}
	}
	return waitCRDsServed(ctx, client, crds)
}

// waitCRDsServed polls until every CRD is Established and served.
func waitCRDsServed(ctx context.Context, client apiextensionsclient.Interface, crds []*apiextensionsv1.CustomResourceDefinition) error {
	disco := client.Discovery()
	for _, crd := range crds {
		err := wait.PollUntilContextCancel(ctx, 2*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if !established(got) {
				return false, nil
			}
			return served(disco, got)
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s to be established and served: %w", crd.Name, err)
		}
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// served reports whether discovery lists crd's plural in every served
// version.
func served(disco discovery.DiscoveryInterface, crd *apiextensionsv1.CustomResourceDefinition) (bool, error) {
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		list, err := disco.ServerResourcesForGroupVersion(crd.Spec.Group + "/" + v.Name)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
			return false, nil
		}
	}
	return true, nil
}

// readCRDPath reads a file, or the CRD files directly in a folder.
func readCRDPath(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("CRD path: %w", err)
	}
	if !info.IsDir() {
		return readCRDFile(path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("CRD path: %w", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, e := range entries {
		if e.IsDir() || !slices.Contains(crdExtensions, strings.ToLower(filepath.Ext(e.Name()))) {
			continue
		}
		read, err := readCRDFile(filepath.Join(path, e.Name()))
		if err != nil {
			return nil, err
		}
		crds = append(crds, read...)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("CRD path %s: no CustomResourceDefinition in its %s files", path, strings.Join(crdExtensions, ", "))
	}
	return crds, nil
}

// readCRDFile decodes every document of a YAML or JSON file; each must be
// an apiextensions.k8s.io/v1 CustomResourceDefinition.
func readCRDFile(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CRD file: %w", err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var crds []*apiextensionsv1.CustomResourceDefinition
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("CRD file %s: %w", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("CRD file %s, document %d: %w", path, i, err)
		}
		if tm.Kind == "" && tm.APIVersion == "" {
			continue // a document of comments only
		}
		if tm.APIVersion != apiextensionsv1.SchemeGroupVersion.String() || tm.Kind != "CustomResourceDefinition" {
			return nil, fmt.Errorf("CRD file %s, document %d: %s %s is not an %s CustomResourceDefinition",
				path, i, tm.APIVersion, tm.Kind, apiextensionsv1.SchemeGroupVersion)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(doc, crd); err != nil {
			return nil, fmt.Errorf("CRD file %s, document %d: %w", path, i, err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}
