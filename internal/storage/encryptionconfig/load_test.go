package encryptionconfig

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	shortKey := b64("eight!!!") // 8 bytes
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"empty file", "", `encryption provider configuration file`},
		{"not yaml", "{{{", "error decoding encryption provider configuration file"},
		{"missing kind", "apiVersion: apiserver.config.k8s.io/v1\nresources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: " + key32a + "}]}}]\n",
			"Object 'Kind' is missing"},
		{"missing apiVersion", "kind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: " + key32a + "}]}}]\n",
			"Object 'apiVersion' is missing"},
		{"wrong kind", "apiVersion: apiserver.config.k8s.io/v1\nkind: Foo\nresources: []\n", `no kind "Foo" is registered`},
		{"wrong version", "apiVersion: apiserver.config.k8s.io/v2\nkind: EncryptionConfiguration\n", `no kind "EncryptionConfiguration" is registered for version "apiserver.config.k8s.io/v2"`},
		{"typo", header + "resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n    pandas: true\n",
			`strict decoding error: unknown field "resources[0].providers[0].pandas"`},
		{"duplicate field", header + "resources: []\nresources: []\n", `strict decoding error`},
		{"no resources", header + "resources: []\n", "resources: Required value: at least one resources is required"},
		{"empty resource list", header + "resources:\n- providers: [{identity: {}}]\n",
			"resources[0].resources: Required value: at least one resources[0].resources is required"},
		{"no providers", header + "resources:\n- resources: [secrets]\n",
			"resources[0].providers: Required value: at least one resources[0].providers is required"},
		{"kms", header + "resources:\n- resources: [secrets]\n  providers:\n  - kms: {apiVersion: v2, name: p, endpoint: unix:///tmp/kms.sock, timeout: 3s}\n",
			"resources[0].providers[0].kms: Forbidden: kms providers are not supported"},
		{"empty provider", header + "resources:\n- resources: [secrets]\n  providers: [{}]\n",
			"provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity"},
		{"two providers in one entry", header + "resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n    aescbc: {keys: [{name: k, secret: " + key32a + "}]}\n",
			"more than one provider specified in a single element"},
		{"no keys", header + "resources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: []}}]\n",
			"resources[0].providers[0].aescbc.keys: Required value: at least one keys is required"},
		{"key without name", header + "resources:\n- resources: [secrets]\n  providers: [{aesgcm: {keys: [{secret: " + key32a + "}]}}]\n",
			"resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key"},
		{"key without secret", header + "resources:\n- resources: [secrets]\n  providers: [{secretbox: {keys: [{name: k}]}}]\n",
			"resources[0].providers[0].secretbox.keys[0].secret: Required value: secret is a mandatory field for a key"},
		{"secret not base64", header + "resources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: '!!notbase64'}]}}]\n",
			`resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded`},
		{"aescbc key size", header + "resources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: " + shortKey + "}]}}]\n",
			`resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]`},
		{"aesgcm key size", header + "resources:\n- resources: [secrets]\n  providers: [{aesgcm: {keys: [{name: k, secret: " + shortKey + "}]}}]\n",
			`got 8, expected one of [16 24 32]`},
		{"secretbox key size", header + "resources:\n- resources: [secrets]\n  providers: [{secretbox: {keys: [{name: k, secret: " + key16a + "}]}}]\n",
			`resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]`},
		{"duplicate resource", header + "resources:\n- resources: [secrets, secrets]\n  providers: [{identity: {}}]\n",
			"the same resource cannot be specified multiple times"},
		{"overlap in a list", header + "resources:\n- resources: [secrets, '*.']\n  providers: [{identity: {}}]\n",
			"using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed"},
		{"capital letters", header + "resources:\n- resources: [Secrets]\n  providers: [{identity: {}}]\n",
			"resource name should not contain capital letters"},
		{"bare star", header + "resources:\n- resources: ['*']\n  providers: [{identity: {}}]\n",
			"use '*.' to encrypt all the resources from core API group"},
		{"events group", header + "resources:\n- resources: [events.events.k8s.io]\n  providers: [{identity: {}}]\n",
			"objects are stored using the 'events' API group"},
		{"extensions group", header + "resources:\n- resources: [ingresses.extensions]\n  providers: [{identity: {}}]\n",
			"'extensions' group has been removed"},
		{"resource across groups", header + "resources:\n- resources: ['secrets.*']\n  providers: [{identity: {}}]\n",
			"encrypting the same resource across groups is not supported"},
		{"not a REST resource", header + "resources:\n- resources: [serviceipallocations]\n  providers: [{identity: {}}]\n",
			"resources which do not have REST API/s cannot be encrypted"},
		{"masked by group wildcard", header + "resources:\n- resources: ['*.apps']\n  providers: [{identity: {}}]\n- resources: [deployments.apps]\n  providers: [{identity: {}}]\n",
			`error while building transformers: resource "deployments.apps" is masked by earlier rule "*.apps"`},
		{"masked by core wildcard", header + "resources:\n- resources: ['*.']\n  providers: [{identity: {}}]\n- resources: [secrets]\n  providers: [{identity: {}}]\n",
			`resource "secrets" is masked by earlier rule "*."`},
		{"masked by any", header + "resources:\n- resources: ['*.*']\n  providers: [{identity: {}}]\n- resources: [secrets]\n  providers: [{identity: {}}]\n",
			`resource "secrets" is masked by earlier rule "*.*"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.content)
			if err == nil {
				t.Fatalf("Load succeeded (%v), want an error containing %q", c, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q\nwant it to contain %q", err, tt.want)
			}
			for _, secret := range []string{key32a, key16a, shortKey, "!!notbase64"} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("error %q shows a secret", err)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.yaml")
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "error reading encryption provider configuration file "+`"`+path+`"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestLoadAllowedOverlaps: a later list may name a wildcard that does not
// cover an earlier rule, and a wildcard after specific rules is fine.
func TestLoadAllowedOverlaps(t *testing.T) {
	mustLoad(t, header+`resources:
- resources: [secrets]
  providers: [{identity: {}}]
- resources: ['*.']
  providers: [{identity: {}}]
- resources: [deployments.apps]
  providers: [{identity: {}}]
- resources: ['*.*']
  providers: [{identity: {}}]
`)
}
