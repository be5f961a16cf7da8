package v1

import admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

// ParamKindString is how kubectl shows a policy's paramKind:
// "apiVersion/Kind", or "<unset>".
func ParamKindString(pk *admissionregistrationv1.ParamKind) string {
	if pk == nil {
		return "<unset>"
	}
	return pk.APIVersion + "/" + pk.Kind
}

// ParamRefString is how kubectl shows a binding's paramRef:
// "namespace/name", "*/name" when the namespace is not given, the
// selector, or "<unset>".
func ParamRefString(ref *admissionregistrationv1.ParamRef) string {
	switch {
	case ref == nil:
		return "<unset>"
	case ref.Name != "" && ref.Namespace != "":
		return ref.Namespace + "/" + ref.Name
	case ref.Name != "":
		return "*/" + ref.Name
	case ref.Selector != nil:
		// Upstream prints the selector's Go debug string.
		return ref.Selector.String()
	}
	return "<unset>"
}
