package serviceaccount

import (
	"context"
	"fmt"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

const (
	// defaultExpirationSeconds is upstream's default of
	// spec.expirationSeconds (authentication/v1 SetDefaults_TokenRequestSpec).
	defaultExpirationSeconds = 60 * 60
	minExpirationSeconds     = 10 * 60
	maxExpirationSeconds     = 1 << 32
)

var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// Options are what serviceaccounts/token needs beyond the store.
type Options struct {
	// Issuer signs the tokens. Without one serviceaccounts/token is not
	// served, as kube-apiserver without --service-account-issuer.
	Issuer *serviceaccount.Issuer
	// APIAudiences are the audiences of tokens that ask for none
	// (--api-audiences); empty means the issuer URL.
	APIAudiences []string
	// MaxExpiration caps the tokens' lifetime
	// (--service-account-max-token-expiration); 0 means only the 2^32 s
	// limit of validation.
	MaxExpiration time.Duration
	// ExtendExpiration extends pod-bound tokens requested for
	// serviceaccount.WarnOnlyBoundTokenExpirationSeconds for the API
	// audiences to MaxExtendedExpiration
	// (--service-account-extend-token-expiration, true upstream).
	ExtendExpiration bool
	// MaxExtendedExpiration is the lifetime of extended tokens; 0 means a
	// year (serviceaccount.ExpirationExtensionSeconds).
	MaxExtendedExpiration time.Duration
	// Pods, Secrets and Nodes read the objects a token is bound to; a nil
	// getter refuses binding to that kind.
	Pods, Secrets, Nodes rest.Getter
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// TokenREST serves POST serviceaccounts/<name>/token: it issues a token
// for the service account, answering the TokenRequest with the token in
// its status. Nothing is stored.
type TokenREST struct {
	serviceAccounts rest.Getter
	opts            Options
}

var (
	_ rest.NamedCreater             = (*TokenREST)(nil)
	_ rest.GroupVersionKindProvider = (*TokenREST)(nil)
)

// NewTokenREST returns the token subresource over the service accounts
// of serviceAccounts. opts.Issuer must be set.
func NewTokenREST(serviceAccounts rest.Getter, opts Options) (*TokenREST, error) {
	if opts.Issuer == nil {
		return nil, fmt.Errorf("serviceaccounts/token: no token issuer")
	}
	if len(opts.APIAudiences) == 0 {
		opts.APIAudiences = []string{opts.Issuer.URL()}
	}
	if opts.MaxExtendedExpiration == 0 {
		opts.MaxExtendedExpiration = serviceaccount.ExpirationExtensionSeconds * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &TokenREST{serviceAccounts: serviceAccounts, opts: opts}, nil
}

// New returns an empty TokenRequest.
func (*TokenREST) New() runtime.Object { return &authenticationv1.TokenRequest{} }

// Destroy has nothing to release.
func (*TokenREST) Destroy() {}

// GroupVersionKind says the subresource speaks authentication.k8s.io/v1
// TokenRequest whatever group serves it.
func (*TokenREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return tokenRequestKind
}

// Create issues a token for service account name in the request's
// namespace, as upstream's TokenRequest storage.
func (r *TokenREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	req, ok := obj.(*authenticationv1.TokenRequest)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", obj))
	}
	namespace := request.NamespaceValue(ctx)
	if namespace == "" {
		return nil, apierrors.NewBadRequest("namespace is required")
	}
	if errs := validateRequestMeta(req, name, namespace); len(errs) > 0 {
		return nil, apierrors.NewInvalid(tokenRequestKind.GroupKind(), name, errs)
	}
	saObj, err := r.serviceAccounts.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	sa := saObj.(*corev1.ServiceAccount)

	req = req.DeepCopy()
	r.complete(req, sa)
	now := r.opts.Now()
	req.CreationTimestamp = metav1.NewTime(now)
	req.Status = authenticationv1.TokenRequestStatus{}
	if errs := validateTokenRequest(req); len(errs) > 0 {
		return nil, apierrors.NewInvalid(tokenRequestKind.GroupKind(), "", errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, req.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	bound, err := r.boundObjects(ctx, name, req.Spec.BoundObjectRef)
	if err != nil {
		return nil, err
	}
	if r.opts.MaxExpiration > 0 && *req.Spec.ExpirationSeconds > int64(r.opts.MaxExpiration.Seconds()) {
		capped := int64(r.opts.MaxExpiration.Seconds())
		warning.AddWarning(ctx, "", fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", *req.Spec.ExpirationSeconds, capped))
		req.Spec.ExpirationSeconds = &capped
	}
	requested := time.Duration(*req.Spec.ExpirationSeconds) * time.Second

	claims := serviceaccount.NewClaims(now, sa.Namespace, serviceaccount.Ref{Name: sa.Name, UID: string(sa.UID)}, req.Spec.Audiences, requested)
	bound.addTo(claims.Kubernetes)
	if r.extends(req, bound) {
		// the token outlives what was asked; past the asked time its use
		// is only flagged
		claims.Kubernetes.WarnAfter = jwt.NewNumericDate(now.Add(requested))
		claims.Expiry = jwt.NewNumericDate(now.Add(r.opts.MaxExtendedExpiration))
	}
	token, err := r.opts.Issuer.Issue(claims)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %w", err))
	}
	req.Status = authenticationv1.TokenRequestStatus{
		Token: token,
		// the asked lifetime even when extended, as upstream: clients
		// refresh on it
		ExpirationTimestamp: metav1.NewTime(now.Add(requested)),
	}
	return req, nil
}

// complete fills what the request leaves out: the audiences, the
// expiration, the name and namespace.
func (r *TokenREST) complete(req *authenticationv1.TokenRequest, sa *corev1.ServiceAccount) {
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = slices.Clone(r.opts.APIAudiences)
	}
	if req.Spec.ExpirationSeconds == nil {
		exp := int64(defaultExpirationSeconds)
		req.Spec.ExpirationSeconds = &exp
	}
	if req.Name == "" {
		req.Name = sa.Name
	}
	if req.Namespace == "" {
		req.Namespace = sa.Namespace
	}
}

// extends says whether a token gets the extended lifetime: a pod-bound
// token asked for exactly the kubelet's warn-only expiration, for the API
// audiences only.
func (r *TokenREST) extends(req *authenticationv1.TokenRequest, bound boundObjects) bool {
	if !r.opts.ExtendExpiration || bound.pod == nil || *req.Spec.ExpirationSeconds != serviceaccount.WarnOnlyBoundTokenExpirationSeconds {
		return false
	}
	for _, a := range req.Spec.Audiences {
		if !slices.Contains(r.opts.APIAudiences, a) {
			return false
		}
	}
	return true
}

// validateRequestMeta: the body's name and namespace, when set, must be
// the URL's.
func validateRequestMeta(req *authenticationv1.TokenRequest, name, namespace string) field.ErrorList {
	var errs field.ErrorList
	if req.Name != "" && req.Name != name {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), req.Name, "must match the service account name if specified"))
	}
	if req.Namespace != "" && req.Namespace != namespace {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), req.Namespace, "must match the service account namespace if specified"))
	}
	return errs
}

// uidConflict is upstream's answer when a reference pins another UID than
// the object's.
func uidConflict(gvk schema.GroupVersionKind, ref *authenticationv1.BoundObjectReference) error {
	return apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
		fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
}

// boundObjects are the objects a token is bound to: a pod (with its node
// when known), a secret, or a node.
type boundObjects struct {
	pod    *corev1.Pod
	secret *corev1.Secret
	node   *corev1.Node
}

func (b boundObjects) addTo(k *serviceaccount.KubernetesClaims) {
	ref := func(m metav1.ObjectMeta) *serviceaccount.Ref {
		return &serviceaccount.Ref{Name: m.Name, UID: string(m.UID)}
	}
	if b.pod != nil {
		k.Pod = ref(b.pod.ObjectMeta)
	}
	if b.secret != nil {
		k.Secret = ref(b.secret.ObjectMeta)
	}
	if b.node != nil {
		k.Node = ref(b.node.ObjectMeta)
	}
}

// boundObjects reads the object ref names; saName is the service account
// a bound pod must run as.
func (r *TokenREST) boundObjects(ctx context.Context, saName string, ref *authenticationv1.BoundObjectReference) (boundObjects, error) {
	var b boundObjects
	if ref == nil {
		return b, nil
	}
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	unsupported := apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
	if gvk.Group != "" {
		return b, unsupported
	}
	var uid types.UID
	switch gvk.Kind {
	case "Pod":
		if r.opts.Pods == nil {
			return b, unsupported
		}
		obj, err := r.opts.Pods.Get(ctx, ref.Name, &metav1.GetOptions{})
		if err != nil {
			return b, err
		}
		b.pod = obj.(*corev1.Pod)
		if b.pod.Spec.ServiceAccountName != saName {
			return b, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", saName))
		}
		uid = b.pod.UID
		b.node = r.podNode(ctx, b.pod.Spec.NodeName)
	case "Secret":
		if r.opts.Secrets == nil {
			return b, unsupported
		}
		obj, err := r.opts.Secrets.Get(ctx, ref.Name, &metav1.GetOptions{})
		if err != nil {
			return b, err
		}
		b.secret = obj.(*corev1.Secret)
		uid = b.secret.UID
	case "Node":
		if r.opts.Nodes == nil {
			return b, unsupported
		}
		obj, err := r.opts.Nodes.Get(request.WithNamespace(ctx, ""), ref.Name, &metav1.GetOptions{})
		if err != nil {
			return b, err
		}
		b.node = obj.(*corev1.Node)
		uid = b.node.UID
	default:
		return b, unsupported
	}
	if ref.UID != "" && ref.UID != uid {
		return b, uidConflict(gvk, ref)
	}
	return b, nil
}

// podNode is the node a bound pod runs on, recorded in the token when it
// can be read; a token is issued without it otherwise, as upstream.
func (r *TokenREST) podNode(ctx context.Context, nodeName string) *corev1.Node {
	if nodeName == "" || r.opts.Nodes == nil {
		return nil
	}
	obj, err := r.opts.Nodes.Get(request.WithNamespace(ctx, ""), nodeName, &metav1.GetOptions{ResourceVersion: "0"})
	if err != nil {
		return nil
	}
	node, _ := obj.(*corev1.Node)
	return node
}

// validateTokenRequest is upstream's ValidateTokenRequest: the lifetime
// bounds, and the audience and attestation rules of tokens bound to an
// admission webhook configuration.
func validateTokenRequest(tr *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	specPath := field.NewPath("spec")
	var exp int64
	if tr.Spec.ExpirationSeconds != nil {
		exp = *tr.Spec.ExpirationSeconds
	}
	if exp < minExpirationSeconds {
		errs = append(errs, field.Invalid(specPath.Child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"))
	}
	if exp > maxExpirationSeconds {
		errs = append(errs, field.Invalid(specPath.Child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"))
	}
	if !isWebhookRef(tr.Spec.BoundObjectRef) {
		if len(tr.Spec.Attestations) != 0 {
			return field.ErrorList{field.Invalid(specPath.Child("attestations"), tr.Spec.Attestations, "attestations may only be specified with a webhook bound object reference")}
		}
		return errs
	}
	if len(tr.Spec.Audiences) != 1 {
		errs = append(errs, field.Invalid(specPath.Child("audiences"), tr.Spec.Audiences, "must be length 1 when bound to a webhook config"))
	}
	return append(errs, validateWebhookAttestations(tr.Spec.Attestations, specPath.Child("attestations"))...)
}

func isWebhookRef(ref *authenticationv1.BoundObjectReference) bool {
	if ref == nil || ref.APIVersion != "admissionregistration.k8s.io/v1" {
		return false
	}
	return ref.Kind == "ValidatingWebhookConfiguration" || ref.Kind == "MutatingWebhookConfiguration"
}

func validateWebhookAttestations(attestations map[string]authenticationv1.AttestationValue, fldPath *field.Path) field.ErrorList {
	if len(attestations) != 1 {
		return field.ErrorList{field.Invalid(fldPath, attestations, "webhook bound requests require exactly one admissionReviewAPIGroups attestation")}
	}
	var errs field.ErrorList
	for key, values := range attestations {
		path := fldPath.Key(key)
		if key != authenticationv1.AttestationAdmissionReviewAPIGroups {
			errs = append(errs, field.NotSupported(path, key, []string{authenticationv1.AttestationAdmissionReviewAPIGroups}))
			continue
		}
		if len(values) != 1 {
			errs = append(errs, field.Invalid(path, values, "must specify a single value"))
			continue
		}
		errs = append(errs, validateAPIGroupAttestation(values[0], path.Index(0))...)
	}
	return errs
}

// validateAPIGroupAttestation: "" would read as both "every name" and "the
// core group", so it is refused; "*" is every group.
func validateAPIGroupAttestation(group string, fldPath *field.Path) field.ErrorList {
	if group == "" {
		return field.ErrorList{field.Invalid(fldPath, group, "may not be an empty string")}
	}
	if group == "*" {
		return nil
	}
	var errs field.ErrorList
	for _, reason := range utilvalidation.IsDNS1123Subdomain(group) {
		errs = append(errs, field.Invalid(fldPath, group, "must specify a valid API Group: "+reason))
	}
	return errs
}
