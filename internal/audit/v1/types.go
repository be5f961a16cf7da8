// Package v1 holds the audit.k8s.io/v1 types kapi reads and writes: the
// Policy of --audit-policy-file and the Event and EventList sent to the log
// and webhook backends. They are kapi's own definitions with the wire names
// of kube-apiserver's, since k8s.io/api carries no audit group.
package v1

import (
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// GroupName is the audit API group.
const GroupName = "audit.k8s.io"

// SchemeGroupVersion is the only audit version kube-apiserver still serves.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// Level says how much of a request an event records.
type Level string

// The levels, from least to most.
const (
	// LevelNone records nothing.
	LevelNone Level = "None"
	// LevelMetadata records who, what, when and the response code, no bodies.
	LevelMetadata Level = "Metadata"
	// LevelRequest adds the request body.
	LevelRequest Level = "Request"
	// LevelRequestResponse adds the response body.
	LevelRequestResponse Level = "RequestResponse"
)

// Stage is the point of a request's life an event is emitted at.
type Stage string

// The stages.
const (
	// StageRequestReceived is emitted as soon as the audit filter sees the request.
	StageRequestReceived Stage = "RequestReceived"
	// StageResponseStarted is emitted when the headers of a long-running
	// response (watch, exec) are sent.
	StageResponseStarted Stage = "ResponseStarted"
	// StageResponseComplete is emitted when the response is done.
	StageResponseComplete Stage = "ResponseComplete"
	// StagePanic is emitted instead of ResponseComplete when the handler panicked.
	StagePanic Stage = "Panic"
)

// Event is one audit record of one stage of one request.
type Event struct {
	metav1.TypeMeta `json:",inline"`

	Level                  Level                   `json:"level"`
	AuditID                types.UID               `json:"auditID"`
	Stage                  Stage                   `json:"stage"`
	RequestURI             string                  `json:"requestURI"`
	Verb                   string                  `json:"verb"`
	User                   authnv1.UserInfo        `json:"user"`
	ImpersonatedUser       *authnv1.UserInfo       `json:"impersonatedUser,omitempty"`
	AuthenticationMetadata *AuthenticationMetadata `json:"authenticationMetadata,omitempty"`
	SourceIPs              []string                `json:"sourceIPs,omitempty"`
	UserAgent              string                  `json:"userAgent,omitempty"`
	ObjectRef              *ObjectReference        `json:"objectRef,omitempty"`
	ResponseStatus         *metav1.Status          `json:"responseStatus,omitempty"`

	// RequestObject is set at level Request and above, ResponseObject at
	// RequestResponse; both are JSON.
	RequestObject  *runtime.Unknown `json:"requestObject,omitempty"`
	ResponseObject *runtime.Unknown `json:"responseObject,omitempty"`

	RequestReceivedTimestamp metav1.MicroTime `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime `json:"stageTimestamp"`

	Annotations map[string]string `json:"annotations,omitempty"`
}

// AuthenticationMetadata says how the user was established.
type AuthenticationMetadata struct {
	ImpersonationConstraint string `json:"impersonationConstraint,omitempty"`
}

// EventList is what the webhook backend POSTs.
type EventList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Event `json:"items"`
}

// Policy is the content of --audit-policy-file: the first matching rule
// decides a request's level.
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Rules             []PolicyRule `json:"rules"`
	OmitStages        []Stage      `json:"omitStages,omitempty"`
	OmitManagedFields bool         `json:"omitManagedFields,omitempty"`
}

// PolicyList is a list of policies.
type PolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Policy `json:"items"`
}

// PolicyRule matches requests; an empty list matches everything.
type PolicyRule struct {
	Level      Level    `json:"level"`
	Users      []string `json:"users,omitempty"`
	UserGroups []string `json:"userGroups,omitempty"`
	Verbs      []string `json:"verbs,omitempty"`

	// Resources and Namespaces match resource requests only,
	// NonResourceURLs non-resource requests only.
	Resources       []GroupResources `json:"resources,omitempty"`
	Namespaces      []string         `json:"namespaces,omitempty"`
	NonResourceURLs []string         `json:"nonResourceURLs,omitempty"`

	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields, when set, overrides the policy's.
	OmitManagedFields *bool `json:"omitManagedFields,omitempty"`
}

// GroupResources names resources of one group ("" core, "*" any).
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// ObjectReference names the object a request is about.
type ObjectReference struct {
	Resource        string    `json:"resource,omitempty"`
	Namespace       string    `json:"namespace,omitempty"`
	Name            string    `json:"name,omitempty"`
	UID             types.UID `json:"uid,omitempty"`
	APIGroup        string    `json:"apiGroup,omitempty"`
	APIVersion      string    `json:"apiVersion,omitempty"`
	ResourceVersion string    `json:"resourceVersion,omitempty"`
	Subresource     string    `json:"subresource,omitempty"`
}
