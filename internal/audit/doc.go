// Package audit records what the API server is asked to do: the policy of
// --audit-policy-file and its checker, which picks a level and the stages to
// emit for each request, the per-request record that filters and handlers
// add to (annotations, the impersonated user), and the Backend interface the
// log and webhook backends implement.
package audit
