package generic

import "github.com/kapi-dev/kapi/internal/registry/rest"

var _ rest.ResetFieldsStrategy = (*Store)(nil)

// GetResetFields is what a write of the main resource ignores, as its
// update strategy says (nil when it says nothing): server-side apply must
// not give a manager ownership of fields the strategy resets.
func (s *Store) GetResetFields() map[string]struct{} {
	if r, ok := s.UpdateStrategy.(rest.ResetFieldsStrategy); ok {
		return r.GetResetFields()
	}
	return nil
}
