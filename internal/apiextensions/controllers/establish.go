package controllers

import (
	"context"
	"crypto/x509"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// establish is the establishing controller: once the names are accepted
// the resource is served, and Established says so. A conversion webhook
// whose CA bundle holds no certificate keeps the CRD unestablished.
func (c *controller) establish(ctx context.Context, crd *apiextv1.CustomResourceDefinition) (*apiextv1.CustomResourceDefinition, error) {
	if !isConditionTrue(crd, apiextv1.NamesAccepted) || isConditionTrue(crd, apiextv1.Established) {
		return crd, nil
	}
	return c.update(ctx, c.status, crd, func(crd *apiextv1.CustomResourceDefinition) bool {
		if !isConditionTrue(crd, apiextv1.NamesAccepted) || isConditionTrue(crd, apiextv1.Established) {
			return false
		}
		cond := apiextv1.CustomResourceDefinitionCondition{
			Type: apiextv1.Established, Status: apiextv1.ConditionTrue,
			Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
		}
		if !validCABundle(crd) {
			cond = apiextv1.CustomResourceDefinitionCondition{
				Type: apiextv1.Established, Status: apiextv1.ConditionFalse,
				Reason: "InvalidCABundle", Message: "The conversion webhook CABundle is invalid",
			}
		}
		if sameCondition(&cond, findCondition(crd, apiextv1.Established)) {
			return false
		}
		setCondition(crd, cond, c.now())
		return true
	})
}

// validCABundle is false only for a conversion webhook CA bundle that is
// set but holds no PEM certificate.
func validCABundle(crd *apiextv1.CustomResourceDefinition) bool {
	conv := crd.Spec.Conversion
	if conv == nil || conv.Webhook == nil || conv.Webhook.ClientConfig == nil || len(conv.Webhook.ClientConfig.CABundle) == 0 {
		return true
	}
	return x509.NewCertPool().AppendCertsFromPEM(conv.Webhook.ClientConfig.CABundle)
}
