package handlers

import (
	"net/url"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestDecodeConnectQuery(t *testing.T) {
	for _, tc := range []struct {
		query string
		obj   runtime.Object
		want  runtime.Object
	}{
		{"command=ls&command=-l&container=c&stdin=true&tty=1", &corev1.PodExecOptions{}, &corev1.PodExecOptions{Command: []string{"ls", "-l"}, Container: "c", Stdin: true, TTY: true}},
		{"ports=80&ports=443", &corev1.PodPortForwardOptions{}, &corev1.PodPortForwardOptions{Ports: []int32{80, 443}}},
		{"path=/x", &corev1.PodProxyOptions{}, &corev1.PodProxyOptions{Path: "/x"}},
	} {
		q, _ := url.ParseQuery(tc.query)
		if err := decodeQuery(q, tc.obj); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tc.obj, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.query, tc.obj, tc.want)
		}
	}
	if err := decodeQuery(url.Values{"stdin": {"maybe"}}, &corev1.PodExecOptions{}); err == nil {
		t.Error("a bad bool was accepted")
	}
}
