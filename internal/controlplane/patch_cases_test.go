package controlplane

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var mergePatchCases = []patchCase{
	{
		name: "configmap merge set", object: "configmap", patchType: mergePatch,
		body: `{"data":{"size":"small","shape":"round"}}`,
	},
	{
		name: "configmap merge null deletes", object: "configmap", patchType: mergePatch,
		body: `{"data":{"color":null},"metadata":{"labels":{"tier":null}}}`,
	},
	{
		name: "service merge replaces list", object: "service", patchType: mergePatch,
		body: `{"spec":{"ports":[{"name":"metrics","port":9090,"targetPort":9090}]}}`,
	},
	{
		// A merge patch has no merge keys: the containers list is replaced.
		name: "deployment merge replaces containers", object: "deployment", patchType: mergePatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`,
	},
	{
		name: "pod merge labels", object: "pod", patchType: mergePatch,
		body: `{"metadata":{"labels":{"version":"2","app":null}}}`,
	},
	{
		name: "configmap unknown field strict", object: "configmap", patchType: mergePatch, query: "fieldValidation=Strict",
		body: `{"data":{"a":"b"},"bogus":1}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "patch",
		message: []string{`strict decoding error: unknown field "bogus"`},
	},
	{
		name: "configmap unknown field warn", object: "configmap", patchType: mergePatch, query: "fieldValidation=Warn",
		body:     `{"data":{"a":"b"},"bogus":1}`,
		warnings: []string{`unknown field "bogus"`},
	},
	{
		// Warn is what a patch without fieldValidation gets.
		name: "configmap unknown field default", object: "configmap", patchType: mergePatch,
		body:     `{"data":{"a":"b"},"bogus":1}`,
		warnings: []string{`unknown field "bogus"`},
	},
	{
		name: "configmap unknown field ignore", object: "configmap", patchType: mergePatch, query: "fieldValidation=Ignore",
		body: `{"data":{"a":"b"},"bogus":1}`,
	},
	{
		name: "deployment nested unknown field strict", object: "deployment", patchType: mergePatch, query: "fieldValidation=Strict",
		body: `{"spec":{"paused":true,"template":{"spec":{"bogusSpec":1}}}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "patch",
		message: []string{`unknown field "spec.template.spec.bogusSpec"`},
	},
	{
		name: "deployment nested unknown field warn", object: "deployment", patchType: mergePatch, query: "fieldValidation=Warn",
		body:     `{"spec":{"paused":true,"template":{"spec":{"bogusSpec":1}}}}`,
		warnings: []string{`unknown field "spec.template.spec.bogusSpec"`},
	},
	{
		name: "configmap duplicate field strict", object: "configmap", patchType: mergePatch, query: "fieldValidation=Strict",
		body: `{"data":{"a":"1","a":"2"}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "patch",
		message: []string{`duplicate field "data.a"`},
	},
	{
		name: "configmap duplicate field warn", object: "configmap", patchType: mergePatch, query: "fieldValidation=Warn",
		body:     `{"data":{"a":"1","a":"2"}}`,
		warnings: []string{`duplicate field "data.a"`},
	},
	{
		name: "configmap merge not an object", object: "configmap", patchType: mergePatch,
		body: `["data"]`,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		message: []string{"error decoding patch"},
	},
	{
		name: "configmap merge missing object", object: "configmap", missing: true, patchType: mergePatch,
		body: `{"data":{"a":"b"}}`,
		code: http.StatusNotFound, reason: metav1.StatusReasonNotFound,
		message: []string{`configmaps "configmap-merge-missing-object" not found`},
	},
	{
		name: "configmap merge renames", object: "configmap", patchType: mergePatch,
		body: `{"metadata":{"name":"other"}}`,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		message: []string{"the name of the object (other) does not match the name on the URL (configmap-merge-renames)"},
	},
	{
		name: "configmap stale resourceversion", object: "configmap", patchType: mergePatch,
		body: `{"metadata":{"resourceVersion":"1"},"data":{"a":"b"}}`,
		code: http.StatusConflict, reason: metav1.StatusReasonConflict,
		message: []string{`Operation cannot be fulfilled on configmaps "configmap-stale-resourceversion": the object has been modified; please apply your changes to the latest version and try again`},
	},
}

var strategicPatchCases = []patchCase{
	{
		name: "deployment add container", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"cache","image":"redis:7"}]}}}}`,
	},
	{
		name: "deployment change image", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`,
	},
	{
		name: "deployment delete container", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}`,
	},
	{
		name: "deployment replace containers", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"nginx:1.28"},{"$patch":"replace"}]}}}}`,
	},
	{
		name: "configmap replace data", object: "configmap", patchType: strategicPatch,
		body: `{"data":{"$patch":"replace","only":"this"}}`,
	},
	{
		name: "deployment recreate retainkeys", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
	},
	{
		// Without $retainKeys the old rollingUpdate stays and is invalid.
		name: "deployment recreate without retainkeys", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"strategy":{"type":"Recreate"}}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec.strategy.rollingUpdate", message: []string{"may not be specified when strategy `type` is 'Recreate'"},
	},
	{
		name: "deployment retainkeys not in patch", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"strategy":{"$retainKeys":["rollingUpdate"],"type":"Recreate"}}}`,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		message: []string{"invalid patch format of retainKeys"},
	},
	{
		name: "deployment set element order", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"nginx"}],"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`,
	},
	{
		name: "deployment delete finalizer", object: "deployment", patchType: strategicPatch,
		body: `{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/a"]}}`,
	},
	{
		// finalizers have patchStrategy merge: the new one is added.
		name: "deployment merge finalizers", object: "deployment", patchType: strategicPatch,
		body: `{"metadata":{"finalizers":["example.com/c","example.com/a"]}}`,
	},
	{
		name: "deployment merge env", object: "deployment", patchType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"LEVEL","value":"debug"},{"name":"EXTRA","value":"1"}]}]}}}}`,
	},
	{
		name: "service merge port", object: "service", patchType: strategicPatch,
		body: `{"spec":{"ports":[{"name":"metrics","port":9090,"targetPort":9090},{"port":80,"targetPort":8081}]}}`,
	},
	{
		name: "pod strategic image", object: "pod", patchType: strategicPatch,
		body: `{"spec":{"containers":[{"name":"helper","image":"busybox:1.37"}]}}`,
	},
	{
		name: "pod strategic finalizers", object: "pod", patchType: strategicPatch,
		body: `{"metadata":{"finalizers":["example.com/b"]}}`,
	},
	{
		name: "deployment strategic unknown field strict", object: "deployment", patchType: strategicPatch, query: "fieldValidation=Strict",
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","bogus":1}]}}}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "patch",
		message: []string{`unknown field "spec.template.spec.containers[0].bogus"`},
	},
	{
		name: "deployment strategic unknown field warn", object: "deployment", patchType: strategicPatch, query: "fieldValidation=Warn",
		body:     `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","bogus":1}]}}}}`,
		warnings: []string{`unknown field "spec.template.spec.containers[0].bogus"`},
	},
	{
		name: "deployment strategic unknown field ignore", object: "deployment", patchType: strategicPatch, query: "fieldValidation=Ignore",
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","bogus":1}]}}}}`,
	},
	{
		name: "configmap strategic bad primitive delete", object: "configmap", patchType: strategicPatch,
		body: `{"metadata":{"$deleteFromPrimitiveListfinalizers":["example.com/a"]}}`,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		message: []string{"invalid patch format of primitive list"},
	},
	{
		// The library's error for an unknown directive is no API error:
		// upstream answers 500 with its text.
		name: "configmap strategic unknown directive", object: "configmap", patchType: strategicPatch,
		body: `{"data":{"$patch":"frob"}}`,
		code: http.StatusInternalServerError, reason: metav1.StatusReasonUnknown,
		message: []string{"unknown patch type: frob in map"},
	},
}

var immutablePatchCases = []patchCase{
	{
		name: "deployment selector immutable", object: "deployment", patchType: mergePatch,
		body: `{"spec":{"selector":{"matchLabels":{"v":"2"}},"template":{"metadata":{"labels":{"v":"2"}}}}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec.selector", message: []string{"field is immutable"},
	},
	{
		// The new address is in the range's static band, which dynamic
		// allocation never hands out while the rest has room: the patch must
		// change the address the service was given.
		name: "service clusterip immutable", object: "service", patchType: mergePatch,
		body: `{"spec":{"clusterIP":"10.0.0.12"}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec.clusterIPs[0]", message: []string{"may not change once set"},
	},
	{
		// Pod updates may change only a few fields; the error is on spec.
		name: "pod container name immutable", object: "pod", patchType: jsonPatch,
		body: `[{"op":"replace","path":"/spec/containers/0/name","value":"renamed"}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec", message: []string{"pod updates may not change fields other than"},
	},
	{
		name: "configmap immutable data", object: "configmap-immutable", patchType: mergePatch,
		body: `{"data":{"color":"red"}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "data", message: []string{"field is immutable when `immutable` is set"},
	},
}

var subresourcePatchCases = []patchCase{
	{
		// The status subresource keeps the spec of the stored object.
		name: "deployment status", object: "deployment", subresource: "status", patchType: mergePatch,
		body: `{"spec":{"replicas":9},"status":{"replicas":2,"observedGeneration":1}}`, get: true,
	},
	{
		name: "deployment status invalid", object: "deployment", subresource: "status", patchType: mergePatch,
		body: `{"status":{"replicas":-1}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "status.replicas", message: []string{"must be greater than or equal to 0"},
	},
	{
		name: "deployment scale merge", object: "deployment", subresource: "scale", patchType: mergePatch,
		body: `{"spec":{"replicas":5}}`, get: true,
	},
	{
		name: "deployment scale json", object: "deployment", subresource: "scale", patchType: jsonPatch,
		body: `[{"op":"replace","path":"/spec/replicas","value":0}]`, get: true,
	},
	{
		name: "deployment scale negative", object: "deployment", subresource: "scale", patchType: mergePatch,
		body: `{"spec":{"replicas":-1}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec.replicas", message: []string{"must be greater than or equal to 0"},
	},
	{
		name: "pod status", object: "pod", subresource: "status", patchType: strategicPatch,
		body: `{"status":{"conditions":[{"type":"Example","status":"True"}]}}`,
	},
}

var optionPatchCases = []patchCase{
	{
		// The answer shows the change, the stored object does not have it.
		name: "configmap dry run", object: "configmap", patchType: mergePatch, query: "dryRun=All",
		body: `{"data":{"color":"red"}}`, get: true,
	},
	{
		name: "deployment dry run invalid", object: "deployment", patchType: mergePatch, query: "dryRun=All",
		body: `{"spec":{"replicas":-3}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec.replicas", message: []string{"must be greater than or equal to 0"},
	},
	{
		name: "configmap bad dry run", object: "configmap", patchType: mergePatch, query: "dryRun=Bogus",
		body: `{"data":{"color":"red"}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "dryRun",
		message: []string{`PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`},
	},
	{
		name: "configmap bad field validation", object: "configmap", patchType: mergePatch, query: "fieldValidation=Bogus",
		body: `{"data":{"color":"red"}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "fieldValidation",
		message: []string{`fieldValidation: Unsupported value: "Bogus"`},
	},
	{
		name: "configmap force without apply", object: "configmap", patchType: mergePatch, query: "force=true",
		body: `{"data":{"color":"red"}}`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "force",
		message: []string{"force: Forbidden: may not be specified for non-apply patch"},
	},
	{
		name: "configmap field manager", object: "configmap", patchType: mergePatch, query: "fieldManager=patcher",
		body: `{"data":{"color":"red"}}`,
	},
	{
		name: "configmap unsupported patch type", object: "configmap", patchType: "application/x-bogus-patch+json",
		body: `{"data":{"color":"red"}}`,
		code: http.StatusUnsupportedMediaType, reason: metav1.StatusReasonUnsupportedMediaType,
		message: []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"},
	},
}
