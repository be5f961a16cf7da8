// Package user describes who makes a request, as authenticators produce it
// and authorizers and admission consume it.
package user

// Well-known user and group names.
const (
	SystemPrivilegedGroup = "system:masters"
	MonitoringGroup       = "system:monitoring"
	AllAuthenticated      = "system:authenticated"
	AllUnauthenticated    = "system:unauthenticated"
	Anonymous             = "system:anonymous"
)

// Info is an authenticated identity.
type Info interface {
	GetName() string
	GetUID() string
	GetGroups() []string
	GetExtra() map[string][]string
}

// DefaultInfo is the plain Info implementation.
type DefaultInfo struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

var _ Info = (*DefaultInfo)(nil)

func (i *DefaultInfo) GetName() string               { return i.Name }
func (i *DefaultInfo) GetUID() string                { return i.UID }
func (i *DefaultInfo) GetGroups() []string           { return i.Groups }
func (i *DefaultInfo) GetExtra() map[string][]string { return i.Extra }
