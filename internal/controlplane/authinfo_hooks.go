package controlplane

import (
	"fmt"
	"log/slog"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/apiserverinfo"
	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	"github.com/kapi-dev/kapi/internal/server"
)

// addAuthenticationInfoHooks adds the kube-system ConfigMaps kube-apiserver
// writes itself, under upstream's hook names. They are part of the API
// server, not of kube-controller-manager, so --controllers does not
// switch them.
func addAuthenticationInfoHooks(s *server.GenericServer, c *Config, clientCA []byte, local *inprocess.Resources, logger *slog.Logger) error {
	var newInformer apiserverinfo.InformerFunc
	if local != nil {
		newInformer = func(obj runtime.Object, namespace string, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
			return local.NewInformer(obj, namespace, tweak, 0)
		}
	}
	info := apiserverinfo.AuthenticationInfo{ClientCA: clientCA}
	if rh := c.Security.RequestHeader; rh.ClientCAFile != "" {
		ca, err := os.ReadFile(rh.ClientCAFile)
		if err != nil {
			return fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		info.RequestHeaderCA = ca
		info.UsernameHeaders, info.UIDHeaders, info.GroupHeaders = rh.UsernameHeaders, rh.UIDHeaders, rh.GroupHeaders
		info.ExtraHeaderPrefixes, info.AllowedNames = rh.ExtraHeaderPrefixes, rh.AllowedNames
	}
	if err := s.AddPostStartHook("start-cluster-authentication-info-controller", func(hc server.PostStartHookContext) error {
		client, err := hookClient(hc.LoopbackClientConfig, "cluster-authentication-info")
		if err != nil {
			return err
		}
		return apiserverinfo.RunAuthenticationInfo(hc.Context, client, newInformer, info, clock.RealClock{}, logger.With("controller", "cluster-authentication-info"))
	}); err != nil {
		return err
	}
	return s.AddPostStartHook("start-legacy-token-tracking-controller", func(hc server.PostStartHookContext) error {
		client, err := hookClient(hc.LoopbackClientConfig, "legacy-token-tracking")
		if err != nil {
			return err
		}
		return apiserverinfo.RunLegacyTokenTracking(hc.Context, client, newInformer, clock.RealClock{}, logger.With("controller", "legacy-token-tracking"))
	})
}

// hookClient returns a protobuf clientset over the loopback config with
// the given user agent, as kube-controller-manager gives each controller
// its own client. Its group clients are built when first used
// (lazyClientset): a hook or controller uses a few of them.
func hookClient(loopback *rest.Config, userAgent string) (kubernetes.Interface, error) {
	cfg := rest.CopyConfig(loopback)
	cfg.UserAgent = "kapi/" + userAgent
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := newLazyClientset(cfg)
	if err != nil {
		return nil, err
	}
	return cs, nil
}
