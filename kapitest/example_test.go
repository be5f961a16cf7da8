package kapitest_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/kapitest"
)

// In a test, pass its *testing.T:
//
//	func TestSettings(t *testing.T) {
//		cs := kubernetes.NewForConfigOrDie(kapitest.Start(t))
//		...
//	}
//
// An example has no *testing.T, so this one runs with exampleT, a
// stand-in with the few methods Start uses.
func Example() {
	t := &exampleT{}
	defer t.cleanup()

	cs := kubernetes.NewForConfigOrDie(kapitest.Start(t))
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"color": "blue"}}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	got, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	fmt.Println(got.Name, got.Data["color"])
	// Output: settings blue
}

// exampleT is the part of *testing.T that Start uses; the embedded
// interface is never called.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()             {}
func (t *exampleT) Cleanup(f func())    { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Logf(string, ...any) {}
func (t *exampleT) Errorf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}
func (t *exampleT) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

func (t *exampleT) TempDir() string {
	dir, err := os.MkdirTemp("", "kapitest-example-")
	if err != nil {
		panic(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func (t *exampleT) cleanup() {
	for _, f := range slices.Backward(t.cleanups) {
		f()
	}
}
