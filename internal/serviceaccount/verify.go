package serviceaccount

import "crypto"

// KeyID is the "kid" kube-apiserver gives public: the unpadded base64url
// SHA-256 of its DER (PKIX) form. Validators pick a token's key by it and
// the issuer's JWKS names its keys with it.
func KeyID(public crypto.PublicKey) (string, error) {
	return keyIDFromPublicKey(public)
}

// SigningAlgorithm is the JWS algorithm tokens signed by public's private
// key use: RS256 for RSA, ES256/ES384/ES512 for ECDSA on P-256/P-384/P-521.
func SigningAlgorithm(public crypto.PublicKey) (string, error) {
	alg, err := algorithmFor(public)
	return string(alg), err
}
