// Package dynamiccertificates serves TLS with certificates read from files
// and reloaded when the files change: the default serving pair
// (--tls-cert-file, --tls-private-key-file), the SNI pairs
// (--tls-sni-cert-key) and client CA bundles (--client-ca-file,
// --requestheader-client-ca-file). It also parses the TLS flags
// (--tls-min-version, --tls-cipher-suites, --tls-sni-cert-key).
//
// Files are polled: each Run re-reads its files every interval and swaps in
// what changed. A file that no longer parses (half written, mismatched key)
// is logged and the last good content keeps serving, so a rotation that goes
// wrong never takes the server down.
package dynamiccertificates
