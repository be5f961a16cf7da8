package rest

// APIGroupInfo is the REST storage of one API group, as a group's
// registry package hands it to the control plane.
type APIGroupInfo struct {
	// Group is the group name; "" is the legacy core group under /api.
	Group string
	// Versions are the served versions, preferred first.
	Versions []string
	// Storage maps each version to its storage, keyed "resource" or
	// "resource/subresource". A resource served in several versions uses
	// one storage object in all of them.
	Storage map[string]map[string]Storage
}
