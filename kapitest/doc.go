// Package kapitest runs a complete Kubernetes API server, kapi, inside a
// Go test: no binaries to download, no process to spawn, no fixed port.
//
//	func TestWidgets(t *testing.T) {
//		cfg := kapitest.Start(t, kapitest.WithCRDPaths("config/crd/bases"))
//		c := kubernetes.NewForConfigOrDie(cfg)
//		...
//	}
//
// Start listens on a free 127.0.0.1 port, stores objects in memory (or in
// an embedded etcd with WithEtcd), writes only under t.TempDir(), and stops
// when the test ends, leaving no goroutine behind; many servers can run in
// parallel in one test binary. The returned config is the administrator's
// (user kapi-admin in group system:masters); WithUser adds users with
// groups, each with its own config (StartServer and Server.UserConfig).
// CRDs given to WithCRDPaths or WithCRDs are Established and served in
// discovery before Start returns.
//
// While a server starts, Start raises the Go collector's target (GOGC) so
// that the start runs without a collection: to at most 400, only while the
// live heap is under 64 MiB, never when the GOGC environment variable is
// set or the test set a target of its own; the previous target comes back
// after the next collection.
//
// The server is kapi as `kapi serve` runs it: the built-in API groups, CRDs,
// RBAC (authorization Node,RBAC unless WithAuthorizationModes says
// otherwise), the default admission plugins (see WithAdmissionPlugins) and
// kapi's in-process controllers.
//
// # controller-runtime and envtest
//
// A kubebuilder suite keeps its envtest.Environment, its CRDInstallOptions
// and its manager code; only the server changes. Either point
// KUBEBUILDER_ASSETS at a folder laid out by `kapi envtest-assets DIR`
// (kapi then runs as envtest's kube-apiserver and etcd), or start kapi
// in-process and hand its config to envtest as an existing cluster:
//
//	cfg := kapitest.Start(t)
//	env := &envtest.Environment{
//		Config:             cfg,
//		UseExistingCluster: ptr.To(true),
//		CRDDirectoryPaths:  []string{filepath.Join("..", "config", "crd", "bases")},
//	}
//	cfg, err := env.Start() // installs the CRDs, as before
//	...
//	defer env.Stop() // kapi itself stops when the test ends
//
// This package does not import controller-runtime, so that depending on it
// costs nothing to suites that do not use it; test/kubebuilder in kapi's
// repository follows both recipes.
package kapitest
