package v1

import rbacv1 "k8s.io/api/rbac/v1"

// SubjectsStrings splits subjects by kind into user names, group names,
// service accounts ("namespace:name", or the bare name without a
// namespace) and anything else, in order, as kubectl prints bindings.
func SubjectsStrings(subjects []rbacv1.Subject) (users, groups, serviceAccounts, others []string) {
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.Namespace != "" {
				serviceAccounts = append(serviceAccounts, s.Namespace+":"+s.Name)
			} else {
				serviceAccounts = append(serviceAccounts, s.Name)
			}
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		default:
			others = append(others, s.Name)
		}
	}
	return users, groups, serviceAccounts, others
}
