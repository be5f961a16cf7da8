package v1

import (
	"maps"
	"slices"
)

// ord ranks the levels; an unknown level ranks below None.
func (l Level) ord() int {
	switch l {
	case LevelNone:
		return 1
	case LevelMetadata:
		return 2
	case LevelRequest:
		return 3
	case LevelRequestResponse:
		return 4
	}
	return 0
}

// Less reports whether l records less than o.
func (l Level) Less(o Level) bool { return l.ord() < o.ord() }

// GreaterOrEqual reports whether l records at least as much as o.
func (l Level) GreaterOrEqual(o Level) bool { return l.ord() >= o.ord() }

// DeepCopy returns a copy of e sharing no memory with it; backends that
// keep an event past ProcessEvents need one, since the caller reuses it.
func (e *Event) DeepCopy() *Event {
	if e == nil {
		return nil
	}
	out := *e
	out.User = *e.User.DeepCopy()
	out.ImpersonatedUser = e.ImpersonatedUser.DeepCopy()
	if e.AuthenticationMetadata != nil {
		m := *e.AuthenticationMetadata
		out.AuthenticationMetadata = &m
	}
	out.SourceIPs = slices.Clone(e.SourceIPs)
	if e.ObjectRef != nil {
		r := *e.ObjectRef
		out.ObjectRef = &r
	}
	out.ResponseStatus = e.ResponseStatus.DeepCopy()
	out.RequestObject = e.RequestObject.DeepCopy()
	out.ResponseObject = e.ResponseObject.DeepCopy()
	e.RequestReceivedTimestamp.DeepCopyInto(&out.RequestReceivedTimestamp)
	e.StageTimestamp.DeepCopyInto(&out.StageTimestamp)
	out.Annotations = maps.Clone(e.Annotations)
	return &out
}
