package admission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/yaml"
)

// configuration is an AdmissionConfiguration file
// (--admission-control-config-file): per plugin, its configuration given
// inline or as a path to another file.
type configuration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Plugins    []struct {
		Name          string          `json:"name"`
		Path          string          `json:"path"`
		Configuration json.RawMessage `json:"configuration"`
	} `json:"plugins"`
}

// configurationVersions are the apiVersions upstream reads an
// AdmissionConfiguration in.
var configurationVersions = []string{
	"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1alpha1",
	"apiserver.k8s.io/v1beta1", "apiserver.k8s.io/v1alpha1",
}

// ReadConfiguration reads an AdmissionConfiguration file and returns each
// plugin's configuration as JSON. A relative path is read from the
// file's directory, as upstream. A plugin name outside known is refused,
// as is a plugin named twice. An empty path means no configuration.
func ReadConfiguration(path string, known []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if path == "" {
		return out, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--admission-control-config-file: %w", err)
	}
	var c configuration
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("--admission-control-config-file %s: %w", path, err)
	}
	if c.Kind != "AdmissionConfiguration" || !slices.Contains(configurationVersions, c.APIVersion) {
		return nil, fmt.Errorf("--admission-control-config-file %s: kind %q of apiVersion %q is not an AdmissionConfiguration (want apiVersion one of %v)", path, c.Kind, c.APIVersion, configurationVersions)
	}
	for _, p := range c.Plugins {
		if !slices.Contains(known, p.Name) {
			return nil, fmt.Errorf("--admission-control-config-file %s: admission plugin %q is unknown", path, p.Name)
		}
		if _, dup := out[p.Name]; dup {
			return nil, fmt.Errorf("--admission-control-config-file %s: admission plugin %q is configured twice", path, p.Name)
		}
		cfg := []byte(p.Configuration)
		switch {
		case p.Path != "" && len(cfg) > 0:
			return nil, fmt.Errorf("--admission-control-config-file %s: plugin %q has both path and configuration", path, p.Name)
		case p.Path != "":
			file := p.Path
			if !filepath.IsAbs(file) {
				file = filepath.Join(filepath.Dir(path), file)
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("--admission-control-config-file %s: plugin %q: %w", path, p.Name, err)
			}
			if cfg, err = yaml.YAMLToJSON(raw); err != nil {
				return nil, fmt.Errorf("--admission-control-config-file %s: plugin %q: %s: %w", path, p.Name, file, err)
			}
		}
		out[p.Name] = cfg
	}
	return out, nil
}
