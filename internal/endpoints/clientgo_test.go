package endpoints_test

import (
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestClientGo drives the handlers with client-go's typed client, in
// JSON and in protobuf, as controllers do.
func TestClientGo(t *testing.T) {
	for _, contentType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		t.Run(contentType, func(t *testing.T) {
			env := newTestEnv(t)
			srv := httptest.NewServer(env.handler)
			defer srv.Close()
			cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: contentType}})
			if err != nil {
				t.Fatal(err)
			}
			cms := cs.CoreV1().ConfigMaps("ns1")
			ctx := t.Context()
			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			created, err := cms.Create(ctx, configMap("", "a", map[string]string{"k": "v"}), metav1.CreateOptions{})
			if err != nil || created.UID == "" || created.Namespace != "ns1" {
				t.Fatalf("create: %+v %v", created, err)
			}
			if ev := <-w.ResultChan(); ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "a" {
				t.Errorf("watch event %s %#v", ev.Type, ev.Object)
			}
			patched, err := cms.Patch(ctx, "a", types.StrategicMergePatchType, []byte(`{"data":{"k2":"v2"}}`), metav1.PatchOptions{})
			if err != nil || patched.Data["k2"] != "v2" {
				t.Fatalf("patch: %+v %v", patched, err)
			}
			list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=a"})
			if err != nil || len(list.Items) != 1 {
				t.Fatalf("list: %+v %v", list, err)
			}
			if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := cms.Get(ctx, "a", metav1.GetOptions{}); err == nil || err.Error() != `configmaps "a" not found` {
				t.Errorf("get after delete: %v", err)
			}
		})
	}
}
