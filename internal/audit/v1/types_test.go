package v1

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func fullEvent() *Event {
	ts := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC))
	return &Event{
		TypeMeta:                 metav1.TypeMeta{APIVersion: "audit.k8s.io/v1", Kind: "Event"},
		Level:                    LevelRequestResponse,
		AuditID:                  "a1",
		Stage:                    StageResponseComplete,
		RequestURI:               "/api/v1/namespaces/ns/pods?x=1",
		Verb:                     "create",
		User:                     authnv1.UserInfo{Username: "alice", UID: "u", Groups: []string{"g"}, Extra: map[string]authnv1.ExtraValue{"k": {"v"}}},
		ImpersonatedUser:         &authnv1.UserInfo{Username: "bob"},
		AuthenticationMetadata:   &AuthenticationMetadata{ImpersonationConstraint: "c"},
		SourceIPs:                []string{"10.0.0.1"},
		UserAgent:                "kubectl",
		ObjectRef:                &ObjectReference{Resource: "pods", Namespace: "ns", Name: "p", UID: "uid", APIGroup: "", APIVersion: "v1", ResourceVersion: "7", Subresource: "status"},
		ResponseStatus:           &metav1.Status{Code: 201},
		RequestObject:            &runtime.Unknown{Raw: []byte(`{"a":1}`), ContentType: "application/json"},
		ResponseObject:           &runtime.Unknown{Raw: []byte(`{"b":2}`), ContentType: "application/json"},
		RequestReceivedTimestamp: ts,
		StageTimestamp:           ts,
		Annotations:              map[string]string{"authorization.k8s.io/decision": "allow"},
	}
}

// TestEventWireNames pins the JSON field names to kube-apiserver's.
func TestEventWireNames(t *testing.T) {
	got, err := json.Marshal(fullEvent())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete",` +
		`"requestURI":"/api/v1/namespaces/ns/pods?x=1","verb":"create",` +
		`"user":{"username":"alice","uid":"u","groups":["g"],"extra":{"k":["v"]}},"impersonatedUser":{"username":"bob"},` +
		`"authenticationMetadata":{"impersonationConstraint":"c"},"sourceIPs":["10.0.0.1"],"userAgent":"kubectl",` +
		`"objectRef":{"resource":"pods","namespace":"ns","name":"p","uid":"uid","apiVersion":"v1","resourceVersion":"7","subresource":"status"},` +
		`"responseStatus":{"metadata":{},"code":201},"requestObject":{"a":1},"responseObject":{"b":2},` +
		`"requestReceivedTimestamp":"2026-01-02T03:04:05.123456Z","stageTimestamp":"2026-01-02T03:04:05.123456Z",` +
		`"annotations":{"authorization.k8s.io/decision":"allow"}}`
	if string(got) != want {
		t.Errorf("event JSON:\n got %s\nwant %s", got, want)
	}
}

func TestPolicyWireNames(t *testing.T) {
	no := false
	p := Policy{
		TypeMeta:          metav1.TypeMeta{APIVersion: "audit.k8s.io/v1", Kind: "Policy"},
		OmitStages:        []Stage{StagePanic},
		OmitManagedFields: true,
		Rules: []PolicyRule{{Level: LevelNone, Users: []string{"u"}, UserGroups: []string{"g"}, Verbs: []string{"get"},
			Resources:  []GroupResources{{Group: "apps", Resources: []string{"deployments"}, ResourceNames: []string{"d"}}},
			Namespaces: []string{"ns"}, NonResourceURLs: []string{"/x"}, OmitStages: []Stage{StageRequestReceived}, OmitManagedFields: &no}},
	}
	got, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Policy","apiVersion":"audit.k8s.io/v1","metadata":{},"rules":[{"level":"None","users":["u"],"userGroups":["g"],` +
		`"verbs":["get"],"resources":[{"group":"apps","resources":["deployments"],"resourceNames":["d"]}],"namespaces":["ns"],` +
		`"nonResourceURLs":["/x"],"omitStages":["RequestReceived"],"omitManagedFields":false}],"omitStages":["Panic"],"omitManagedFields":true}`
	if string(got) != want {
		t.Errorf("policy JSON:\n got %s\nwant %s", got, want)
	}
}

func TestDeepCopy(t *testing.T) {
	orig := fullEvent()
	cp := orig.DeepCopy()
	if diff := cmp.Diff(orig, cp); diff != "" {
		t.Fatalf("copy differs (-orig +copy):\n%s", diff)
	}
	cp.User.Groups[0] = "changed"
	cp.User.Extra["k"][0] = "changed"
	cp.ImpersonatedUser.Username = "changed"
	cp.AuthenticationMetadata.ImpersonationConstraint = "changed"
	cp.SourceIPs[0] = "changed"
	cp.ObjectRef.Name = "changed"
	cp.ResponseStatus.Code = 1
	cp.RequestObject.Raw[0] = 'x'
	cp.ResponseObject.Raw[0] = 'x'
	cp.Annotations["authorization.k8s.io/decision"] = "changed"
	if diff := cmp.Diff(fullEvent(), orig); diff != "" {
		t.Errorf("changing the copy changed the original:\n%s", diff)
	}
	if (*Event)(nil).DeepCopy() != nil {
		t.Error("DeepCopy of nil is not nil")
	}
}

func TestLevelOrder(t *testing.T) {
	order := []Level{LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse}
	for i, a := range order {
		for j, b := range order {
			if a.Less(b) != (i < j) || a.GreaterOrEqual(b) != (i >= j) {
				t.Errorf("%s vs %s ordered wrongly", a, b)
			}
		}
	}
	if !Level("bogus").Less(LevelNone) {
		t.Error("an unknown level should rank below None")
	}
}
