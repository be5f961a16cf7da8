package sampleapiserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/sampleapiserver"
)

// TestThroughKapi: the sample server, registered by an APIService, is
// Available (kapi's checks pass its delegated authentication with the
// front-proxy certificate, whose CA it read from kapi's
// kube-system/extension-apiserver-authentication), its group is in
// kapi's discovery, and client-go and kubectl create, get, list and
// watch its flunders through kapi. The server sees the caller kapi
// authenticated, exactly as kapi's SelfSubjectReview names it.
func TestThroughKapi(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	const authConfigMap = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"
	if !slices.ContainsFunc(c.sample.Reads(), func(r sampleapiserver.Read) bool { return r.Path == authConfigMap && r.Code == 200 }) {
		t.Errorf("the sample server did not read %s from kapi; it read %+v", authConfigMap, c.sample.Reads())
	}

	checkDiscovery(t, ctx, c.admin)

	flunders := dynamic.NewForConfigOrDie(c.admin).Resource(sampleapiserver.Resource).Namespace("default")
	created, err := flunders.Create(ctx, flunder("my-flunder", "fischer"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetNamespace() != "default" {
		t.Errorf("created flunder lacks uid, resourceVersion or namespace: %v", created.Object)
	}
	if _, err := flunders.Create(ctx, flunder("my-flunder", ""), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create of my-flunder: %v, want AlreadyExists", err)
	}
	gen := flunder("", "")
	gen.SetGenerateName("gen-")
	if _, err := flunders.Create(ctx, gen, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create with generateName: %v", err)
	}

	list, err := flunders.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	var names []string
	for _, it := range list.Items {
		names = append(names, it.GetName())
	}
	if len(names) != 2 || names[1] != "my-flunder" || !strings.HasPrefix(names[0], "gen-") {
		t.Errorf("listed %v, want gen-… and my-flunder", names)
	}
	fetched, err := flunders.Get(ctx, "my-flunder", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if ref, _, _ := unstructured.NestedString(fetched.Object, "spec", "reference"); ref != "fischer" {
		t.Errorf("spec.reference = %q, want fischer", ref)
	}

	checkWatch(t, ctx, flunders, list.GetResourceVersion())

	out, err := c.kapi.Kubectl(t, "get", "flunders", "-n", "default")
	if err != nil || !strings.Contains(out, "my-flunder") || !strings.Contains(out, "NAME") {
		t.Errorf("kubectl get flunders: %v\n%s", err, out)
	}

	// The identity the server recorded for the create is the admin's.
	admin := whoAmI(t, ctx, c.admin)
	req, ok := findRequest(c.sample, "create", "")
	if !ok {
		t.Fatalf("the sample server recorded no create: %+v", c.sample.Requests())
	}
	if diff := cmp.Diff(identity(admin), identityOf(req)); diff != "" {
		t.Errorf("identity the sample server saw for the admin's create (-kapi's SelfSubjectReview +seen):\n%s", diff)
	}
}

// checkDiscovery: discovery of the group version is proxied to the
// server; the merged documents (/apis, aggregated discovery) follow as
// kapi's discovery controller fetches the server's.
func checkDiscovery(t *testing.T, ctx context.Context, admin *rest.Config) {
	t.Helper()
	disco := discovery.NewDiscoveryClientForConfigOrDie(admin)
	resources, err := disco.ServerResourcesForGroupVersion(sampleapiserver.SchemeGroupVersion.String())
	if err != nil {
		t.Fatalf("ServerResourcesForGroupVersion: %v", err)
	}
	want := metav1.APIResource{
		Name: "flunders", SingularName: "flunder", Namespaced: true, Kind: "Flunder",
		Verbs: metav1.Verbs{"create", "get", "list", "watch"}, ShortNames: []string{"fl"},
	}
	if len(resources.APIResources) != 1 {
		t.Fatalf("resources of %s: %+v, want flunders only", resources.GroupVersion, resources.APIResources)
	}
	got := resources.APIResources[0]
	got.StorageVersionHash = "" // upstream's hash of the storage version; not ours to pin
	slices.Sort(got.Verbs)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flunders in discovery (-want +got):\n%s", diff)
	}
	eventually(t, ctx, "wardle.example.com in kapi's merged discovery", func(context.Context) (bool, error) {
		_, lists, err := disco.ServerGroupsAndResources()
		if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
			return false, err
		}
		for _, l := range lists {
			if l.GroupVersion == sampleapiserver.SchemeGroupVersion.String() {
				return slices.ContainsFunc(l.APIResources, func(r metav1.APIResource) bool { return r.Name == "flunders" }), nil
			}
		}
		return false, nil
	})
}

// checkWatch: a watch from a list's resource version streams through
// kapi's proxy the flunder created after it started.
func checkWatch(t *testing.T, ctx context.Context, flunders dynamic.ResourceInterface, resourceVersion string) {
	t.Helper()
	w, err := flunders.Watch(ctx, metav1.ListOptions{ResourceVersion: resourceVersion})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	if _, err := flunders.Create(ctx, flunder("watched", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-w.ResultChan():
		if o, ok := e.Object.(*unstructured.Unstructured); e.Type != watch.Added || !ok || o.GetName() != "watched" {
			t.Errorf("watch event %s %v, want ADDED watched", e.Type, e.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event")
	}
}

// TestDelegatedAuthorization: a service account without RBAC rights on
// flunders is refused by kapi before its request is proxied, and by the
// sample server itself when it calls the server directly with its token:
// the server authenticates the token by a TokenReview to kapi and is
// told no by a SubjectAccessReview. After a Role is bound, both ways
// work, and the server sees the service account exactly as kapi names
// it: user, uid, groups and extra, forwarded by kapi's front proxy or
// returned by the TokenReview.
func TestDelegatedAuthorization(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(c.admin)
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "bob"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := serviceAccountToken(t, ctx, cs, "default", "bob")
	viaKapi := dynamic.NewForConfigOrDie(tokenConfig(c.admin, token)).Resource(sampleapiserver.Resource).Namespace("default")
	direct := dynamic.NewForConfigOrDie(directConfig(c.sample, token)).Resource(sampleapiserver.Resource).Namespace("default")
	bob := whoAmI(t, ctx, tokenConfig(c.admin, token))
	const forbidden = `User "system:serviceaccount:default:bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"`

	if _, err := viaKapi.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), forbidden) {
		t.Errorf("bob's list through kapi: %v, want 403 %s", err, forbidden)
	}
	if _, ok := findRequest(c.sample, "list", bob.Username); ok {
		t.Error("kapi proxied a request its authorization refused")
	}
	if _, err := direct.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), forbidden) {
		t.Errorf("bob's list sent to the sample server: %v, want 403 %s", err, forbidden)
	}
	if r, ok := findReview(c.sample, "TokenReview", bob.Username); !ok || !r.Allowed || !slices.Equal(r.Groups, bob.Groups) {
		t.Errorf("TokenReview of bob's token: %+v (found %v), want authenticated as %s in %v", r, ok, bob.Username, bob.Groups)
	}
	denied := sampleapiserver.Review{Kind: "SubjectAccessReview", User: bob.Username, Groups: bob.Groups, Verb: "list", Group: sampleapiserver.GroupName, Resource: "flunders", Namespace: "default", Code: 201}
	if r, _ := findReview(c.sample, "SubjectAccessReview", bob.Username); !cmp.Equal(r, denied) {
		t.Errorf("SubjectAccessReview of bob's list (-want +got):\n%s", cmp.Diff(denied, r))
	}

	grantFlunders(t, ctx, cs, "default", "bob")
	eventually(t, ctx, "bob's create through kapi", func(ctx context.Context) (bool, error) {
		_, err := viaKapi.Create(ctx, flunder("bobs", ""), metav1.CreateOptions{})
		return err == nil, ignoreForbidden(err)
	})
	req, ok := findRequest(c.sample, "create", bob.Username)
	if !ok {
		t.Fatalf("the sample server recorded no create by bob: %+v", c.sample.Requests())
	}
	if diff := cmp.Diff(identity(bob), identityOf(req)); diff != "" {
		t.Errorf("identity the sample server saw through kapi (-kapi's SelfSubjectReview +seen):\n%s", diff)
	}
	allowed := sampleapiserver.Review{Kind: "SubjectAccessReview", User: bob.Username, Groups: bob.Groups, Verb: "create", Group: sampleapiserver.GroupName, Resource: "flunders", Namespace: "default", Allowed: true, Code: 201}
	if r, _ := findReviewOf(c.sample, bob.Username, "create"); !cmp.Equal(r, allowed) {
		t.Errorf("SubjectAccessReview of bob's create (-want +got):\n%s", cmp.Diff(allowed, r))
	}

	var list *unstructured.UnstructuredList
	eventually(t, ctx, "bob's list sent to the sample server", func(ctx context.Context) (bool, error) {
		var err error
		list, err = direct.List(ctx, metav1.ListOptions{})
		return err == nil, ignoreForbidden(err)
	})
	if len(list.Items) != 1 || list.Items[0].GetName() != "bobs" {
		t.Errorf("bob's direct list: %v, want bobs", list.Items)
	}
	req, _ = findRequest(c.sample, "list", bob.Username)
	if diff := cmp.Diff(identity(bob), identityOf(req)); diff != "" {
		t.Errorf("identity the sample server saw from the TokenReview (-kapi's SelfSubjectReview +seen):\n%s", diff)
	}
}

// grantFlunders binds a Role on flunders in namespace to a service
// account, as a cluster admin would.
func grantFlunders(t *testing.T, ctx context.Context, cs kubernetes.Interface, namespace, sa string) {
	t.Helper()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "flunder-editor", Namespace: namespace},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{sampleapiserver.GroupName}, Resources: []string{"flunders"},
			Verbs: []string{"get", "list", "watch", "create"},
		}},
	}
	if _, err := cs.RbacV1().Roles(namespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "flunder-editor", Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: namespace}},
	}
	if _, err := cs.RbacV1().RoleBindings(namespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func flunder(name, reference string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": sampleapiserver.SchemeGroupVersion.String(),
		"kind":       "Flunder",
		"metadata":   map[string]any{"name": name},
	}}
	if name == "" {
		unstructured.RemoveNestedField(u.Object, "metadata", "name")
	}
	if reference != "" {
		_ = unstructured.SetNestedField(u.Object, reference, "spec", "reference")
	}
	return u
}

// who is an identity to compare: the user kapi names in a
// SelfSubjectReview and the one the sample server recorded.
type who struct {
	User, UID string
	Groups    []string
	Extra     map[string][]string
}

func identity(u authenticationv1.UserInfo) who {
	w := who{User: u.Username, UID: u.UID, Groups: u.Groups}
	for k, v := range u.Extra {
		if w.Extra == nil {
			w.Extra = map[string][]string{}
		}
		w.Extra[k] = v
	}
	return w
}

func identityOf(r sampleapiserver.Request) who {
	w := who{User: r.User, UID: r.UID, Groups: r.Groups}
	if len(r.Extra) > 0 {
		w.Extra = r.Extra
	}
	return w
}

// findRequest is the last request for verb by user ("" for anyone) the
// sample server recorded.
func findRequest(s *sampleapiserver.Server, verb, user string) (sampleapiserver.Request, bool) {
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Verb == verb && (user == "" || reqs[i].User == user) {
			return reqs[i], true
		}
	}
	return sampleapiserver.Request{}, false
}

// findReview is the first review of kind about user.
func findReview(s *sampleapiserver.Server, kind, user string) (sampleapiserver.Review, bool) {
	for _, r := range s.Reviews() {
		if r.Kind == kind && r.User == user {
			return r, true
		}
	}
	return sampleapiserver.Review{}, false
}

// findReviewOf is the last SubjectAccessReview of user for verb.
func findReviewOf(s *sampleapiserver.Server, user, verb string) (sampleapiserver.Review, bool) {
	revs := s.Reviews()
	for i := len(revs) - 1; i >= 0; i-- {
		if revs[i].Kind == "SubjectAccessReview" && revs[i].User == user && revs[i].Verb == verb {
			return revs[i], true
		}
	}
	return sampleapiserver.Review{}, false
}

// ignoreForbidden lets a poll go on through 403s: a grant reaches kapi's
// RBAC and the server's authorization cache a moment later.
func ignoreForbidden(err error) error {
	if apierrors.IsForbidden(err) {
		return nil
	}
	return err
}

// eventually polls cond until it holds, failing the test when ctx ends
// first.
func eventually(t *testing.T, ctx context.Context, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
