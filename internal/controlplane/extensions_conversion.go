package controlplane

import (
	"net/http"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/internal/apiextensions/conversion"
	crserver "github.com/kapi-dev/kapi/internal/apiextensions/server"
	"github.com/kapi-dev/kapi/internal/webhook"
)

// conversionWebhookTimeout bounds one ConversionReview call, as upstream's
// 30 seconds.
const conversionWebhookTimeout = 30 * time.Second

// webhookConverters gives the extensions server a conversion webhook
// client per CRD over one shared client manager.
type webhookConverters struct{ clients *webhook.ClientManager }

// newWebhookConverters' clients send through wrap, when set (tracing).
func newWebhookConverters(resolver webhook.ServiceResolver, wrap func(http.RoundTripper) http.RoundTripper) webhookConverters {
	return webhookConverters{clients: webhook.NewClientManager(resolver, conversionWebhookTimeout).WithTransportWrapper(wrap)}
}

func (w webhookConverters) NewConverter(crd *apiextv1.CustomResourceDefinition) (crserver.Converter, error) {
	c, err := conversion.NewWebhookConverter(crd, w.clients)
	if err != nil {
		return nil, err
	}
	return c, nil
}
