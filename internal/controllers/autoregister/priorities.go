package autoregister

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// priority is an APIService's groupPriorityMinimum and versionPriority.
type priority struct{ group, version int32 }

// builtinPriorities are kube-apiserver's priorities of the built-in group
// versions kapi serves (upstream keeps them in one table; a group version
// missing there gets no APIService).
var builtinPriorities = map[schema.GroupVersion]priority{
	{Group: "", Version: "v1"}:                             {18000, 1},
	{Group: "apps", Version: "v1"}:                         {17800, 15},
	{Group: "events.k8s.io", Version: "v1"}:                {17750, 15},
	{Group: "authentication.k8s.io", Version: "v1"}:        {17700, 15},
	{Group: "authorization.k8s.io", Version: "v1"}:         {17600, 15},
	{Group: "autoscaling", Version: "v1"}:                  {17500, 15},
	{Group: "autoscaling", Version: "v2"}:                  {17500, 30},
	{Group: "batch", Version: "v1"}:                        {17400, 15},
	{Group: "certificates.k8s.io", Version: "v1"}:          {17300, 15},
	{Group: "networking.k8s.io", Version: "v1"}:            {17200, 15},
	{Group: "policy", Version: "v1"}:                       {17100, 15},
	{Group: "rbac.authorization.k8s.io", Version: "v1"}:    {17000, 15},
	{Group: "storage.k8s.io", Version: "v1"}:               {16800, 15},
	{Group: "apiextensions.k8s.io", Version: "v1"}:         {16700, 15},
	{Group: "admissionregistration.k8s.io", Version: "v1"}: {16700, 15},
	{Group: "scheduling.k8s.io", Version: "v1"}:            {16600, 15},
	{Group: "coordination.k8s.io", Version: "v1"}:          {16500, 15},
	{Group: "node.k8s.io", Version: "v1"}:                  {16300, 15},
	{Group: "discovery.k8s.io", Version: "v1"}:             {16200, 15},
	{Group: "resource.k8s.io", Version: "v1"}:              {16200, 21},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}: {16100, 21},
	{Group: "storagemigration.k8s.io", Version: "v1"}:      {15800, 15},
}

// CRD APIServices share one low group priority and sort their versions
// the Kubernetes way, as upstream registers them.
const (
	crdGroupPriorityMinimum = 1000
	crdVersionPriority      = 100
)

// IsBuiltin is whether gv is one of the built-in group versions with an
// upstream priority (a CRD may not take its APIService).
func IsBuiltin(gv schema.GroupVersion) bool {
	_, ok := builtinPriorities[gv]
	return ok
}

// BuiltinAPIService is the local APIService of the built-in gv, or nil
// when upstream gives gv none.
func BuiltinAPIService(gv schema.GroupVersion) *apiregistrationv1.APIService {
	p, ok := builtinPriorities[gv]
	if !ok {
		return nil
	}
	return localAPIService(gv, p)
}

func localAPIService(gv schema.GroupVersion, p priority) *apiregistrationv1.APIService {
	s := &apiregistrationv1.APIService{Spec: apiregistrationv1.APIServiceSpec{
		Group: gv.Group, Version: gv.Version,
		GroupPriorityMinimum: p.group, VersionPriority: p.version,
	}}
	s.Name = gv.Version + "." + gv.Group
	return s
}
