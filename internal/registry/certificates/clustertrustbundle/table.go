package clustertrustbundle

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME SIGNERNAME, as kube-apiserver does (no age column).
func Table() *printers.Table[*certificatesv1.ClusterTrustBundle] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "SignerName", Type: "string", Description: certificatesv1.ClusterTrustBundleSpec{}.SwaggerDoc()["signerName"]},
	}
	return printers.New(columns, func(b *certificatesv1.ClusterTrustBundle, _ time.Time) []any {
		signer := "<none>"
		if b.Spec.SignerName != "" {
			signer = b.Spec.SignerName
		}
		return []any{b.Name, signer}
	})
}
