// Package serviceaccount issues and reads service-account tokens: the
// bound JWTs of the TokenRequest API, signed with the server's
// service-account signing key.
//
// LoadOrGenerateSigningKey gives the key (kube-apiserver's
// --service-account-signing-key-file, or one kapi generates and keeps),
// an Issuer signs Claims with it, and Issuer.Validate checks a token's
// signature, issuer, times and audience for the authenticator.
package serviceaccount
