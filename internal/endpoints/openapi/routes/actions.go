package routes

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// cutSub splits "deployments/status" into its resource and subresource.
func cutSub(name string) (resource, sub string, ok bool) {
	return strings.Cut(name, "/")
}

// resourceOps builds the operations of one (sub)resource, at the paths
// kube-apiserver's installer serves them.
type resourceOps struct {
	b   *builder
	r   Resource
	gvk schema.GroupVersionKind
	d   describer
	// scope is "Namespaced" for namespaced resources, as operation ids
	// say it; rest is the kind and titled subresource after it.
	scope, rest string

	// Relative paths and path parameters of the collection and of one
	// item; for a subresource both are the item's subresource path.
	resourcePath, itemPath     string
	resourceParams, itemParams []param
	// allNamespacesPath is where a namespaced main resource is listed
	// across namespaces (its plain name); empty otherwise.
	allNamespacesPath string
}

func (b *builder) addResource(in *Resource) {
	r := withDefaults(*in)
	res, sub, _ := cutSub(r.APIResource.Name)
	// Operations of a subresource are named after its parent's kind
	// (readAppsV1NamespacedDeploymentScale), while their GVK extension
	// and {name} parameter are of its own (autoscaling/v1 Scale).
	kind := r.Kind.Kind
	if parent, ok := b.kinds[res]; ok && sub != "" {
		kind = parent
	}
	o := &resourceOps{b: b, r: r, gvk: r.Kind, d: describer{kind: kind, sub: sub}, rest: kind + title(sub)}
	if r.APIResource.Namespaced {
		o.scope = "Namespaced"
		o.resourcePath = "namespaces/{namespace}/" + res
		o.resourceParams = []param{namespaceParam}
		if sub == "" {
			o.allNamespacesPath = res
		}
	} else {
		o.resourcePath = res
	}
	o.itemPath = o.resourcePath + "/{name}"
	o.itemParams = concat(o.resourceParams, []param{nameParam(r.Kind.Kind)})
	if sub != "" {
		o.itemPath += "/" + sub
		o.resourcePath, o.resourceParams = o.itemPath, o.itemParams
	}
	if len(r.ConnectMethods) > 0 {
		// Discovery lists a connect subresource's methods as verbs
		// (GET as get, POST as create): they are connections, not CRUD.
		o.addConnect()
		return
	}
	o.addVerbs()
}

// id is an operation id: the verb, the group version, then what follows
// ("list"+"AppsV1"+"NamespacedDeployment").
func (o *resourceOps) id(verb, before, after string) string {
	return verb + o.b.idPart + validID(before+o.scope+o.rest+after, true)
}

func (o *resourceOps) op(method, action, id, description string) operation {
	gvk := o.gvk
	return operation{method: method, action: action, id: id, description: description, gvk: &gvk, consumes: anyMediaType}
}

// verbSet is what a resource's discovery verbs make it serve.
type verbSet struct {
	verbs map[string]bool
	// lister needs a list definition; watcher may watch one object,
	// and a collection too when it is a lister.
	lister, watcher bool
}

// addVerbs adds the operations of the discovery verbs, in upstream's
// order: the collection's, the item's, then across namespaces.
func (o *resourceOps) addVerbs() {
	v := verbSet{verbs: map[string]bool{}}
	for _, verb := range o.r.APIResource.Verbs {
		v.verbs[verb] = true
	}
	v.lister = v.verbs["list"] && o.r.List != ""
	v.watcher = v.verbs["watch"]
	o.addCollection(v)
	o.addItem(v)
	if v.lister && o.allNamespacesPath != "" {
		// Across namespaces the operation ids drop "Namespaced".
		all := *o
		all.scope = ""
		all.addList(o.allNamespacesPath, "ForAllNamespaces", nil, v.watcher)
		if v.watcher {
			all.addWatchList("watch/"+o.allNamespacesPath, "ForAllNamespaces", nil)
		}
	}
}

// addCollection adds list, create, deletecollection and the deprecated
// watch of the collection.
func (o *resourceOps) addCollection(v verbSet) {
	if v.lister {
		o.addList(o.resourcePath, "", o.resourceParams, v.watcher)
	}
	if v.verbs["create"] {
		op := o.op(http.MethodPost, "post", o.id("create", "", ""), o.d.create())
		op.params = concat(createParams, []param{prettyParam}, o.resourceParams)
		op.body, op.bodyRequired = o.r.Object, true
		op.produces = mediaTypes
		op.responses = objectResponses(o.r.Object, 200, 201, 202)
		o.b.add(o.resourcePath, op)
	}
	if v.verbs["deletecollection"] {
		op := o.op(http.MethodDelete, "deletecollection", o.id("delete", "Collection", ""), o.d.deleteCollection())
		op.params = concat(deleteCollectionParams, []param{prettyParam}, o.resourceParams)
		op.body = o.b.use(refDeleteOptions)
		op.produces = mediaTypes
		op.responses = objectResponses(o.b.use(refStatus), 200)
		o.b.add(o.resourcePath, op)
	}
	if v.lister && v.watcher {
		o.addWatchList("watch/"+o.resourcePath, "", o.resourceParams)
	}
}

// addItem adds get, update, patch, delete and the deprecated watch of
// one object.
func (o *resourceOps) addItem(v verbSet) {
	pretty := []param{prettyParam}
	if v.verbs["get"] {
		o.addGet()
	}
	if v.verbs["update"] {
		op := o.op(http.MethodPut, "put", o.id("replace", "", ""), o.d.replace())
		op.params = concat(updateParams, pretty, o.itemParams)
		op.body, op.bodyRequired = o.r.Object, true
		op.produces = mediaTypes
		op.responses = objectResponses(o.r.Object, 200, 201)
		o.b.add(o.itemPath, op)
	}
	if v.verbs["patch"] {
		op := o.op(http.MethodPatch, "patch", o.id("patch", "", ""), o.d.patch())
		op.params = concat(patchParams, pretty, o.itemParams)
		op.body, op.bodyRequired = o.b.use(refPatch), true
		op.consumes = o.r.PatchTypes
		if len(op.consumes) == 0 {
			op.consumes = defaultPatchTypes
		}
		op.produces = mediaTypes
		op.responses = objectResponses(o.r.Object, 200, 201)
		o.b.add(o.itemPath, op)
	}
	if v.verbs["delete"] {
		op := o.op(http.MethodDelete, "delete", o.id("delete", "", ""), o.d.delete())
		op.params = concat(deleteParams, pretty, o.itemParams)
		op.body = o.b.use(refDeleteOptions)
		op.produces = mediaTypes
		answer := o.r.Object
		if !o.r.DeleteReturnsObject {
			answer = o.b.use(refStatus)
		}
		op.responses = objectResponses(answer, 200, 202)
		o.b.add(o.itemPath, op)
	}
	if v.watcher {
		op := o.op(http.MethodGet, "watch", o.id("watch", "", ""), o.d.watch())
		op.params = concat(listParams, pretty, o.itemParams)
		op.produces = allMediaTypes
		op.responses = objectResponses(o.b.use(refWatchEvent), 200)
		o.b.add("watch/"+o.itemPath, op)
	}
}

// addList adds the list (or watch, with ?watch=true) of a collection at
// path.
func (o *resourceOps) addList(path, suffix string, pathParams []param, watcher bool) {
	op := o.op(http.MethodGet, "list", o.id("list", "", suffix), o.d.list(watcher))
	op.params = concat(listParams, []param{prettyParam}, pathParams)
	op.produces = allMediaTypes
	op.responses = objectResponses(o.r.List, 200)
	o.b.add(path, op)
}

// addWatchList adds the deprecated watch of a collection at path.
func (o *resourceOps) addWatchList(path, suffix string, pathParams []param) {
	op := o.op(http.MethodGet, "watchlist", o.id("watch", "", "List"+suffix), o.d.watchList())
	op.params = concat(listParams, []param{prettyParam}, pathParams)
	op.produces = allMediaTypes
	op.responses = objectResponses(o.b.use(refWatchEvent), 200)
	o.b.add(path, op)
}

// addGet adds the read of one object; a GET with its own media types
// (pods/log) answers a plain string.
func (o *resourceOps) addGet() {
	op := o.op(http.MethodGet, "get", o.id("read", "", ""), o.d.read())
	op.params = concat(queryParams(o.r.GetOptions), []param{prettyParam}, o.itemParams)
	op.produces = joinTypes(o.r.GetProduces, mediaTypes)
	answer := o.r.Object
	if len(o.r.GetProduces) > 0 {
		answer = ""
	}
	op.responses = objectResponses(answer, 200)
	o.b.add(o.itemPath, op)
}

// addConnect adds one operation per connect method at the item path,
// and again under .../{path} for a subpath (proxy).
func (o *resourceOps) addConnect() {
	options := queryParams(o.r.ConnectOptions)
	for _, m := range o.r.ConnectMethods {
		method := strings.ToUpper(m)
		op := o.op(method, "connect", o.id("connect", title(method), ""), o.d.connect(method))
		op.params = concat(options, o.itemParams)
		op.produces = anyMediaType
		op.responses = objectResponses("", 200)
		o.b.add(o.itemPath, op)
		if o.r.ConnectSubpath {
			sub := o.op(method, "connect", o.id("connect", title(method), "WithPath"), o.d.connect(method))
			sub.params = concat(options, o.itemParams, []param{subpathParam})
			sub.produces = anyMediaType
			sub.responses = objectResponses("", 200)
			o.b.add(o.itemPath+"/{path}", sub)
		}
	}
}
