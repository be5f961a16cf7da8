package cli

import (
	"testing"

	"k8s.io/utils/ptr"
)

// TestTolerationSecondsFlags: kube-apiserver's two flags reach the
// config, in the drop-in and in kapi serve, with upstream's default 300.
func TestTolerationSecondsFlags(t *testing.T) {
	for _, tc := range []struct {
		args                  []string
		notReady, unreachable int64
	}{
		{nil, 300, 300},
		{[]string{"--default-not-ready-toleration-seconds=30", "--default-unreachable-toleration-seconds=0"}, 30, 0},
	} {
		o, _, err := parseKubeAPIServer(t, append([]string{"--cert-dir=" + t.TempDir()}, tc.args...))
		if err != nil {
			t.Fatal(err)
		}
		pa := o.Config().PodAdmission
		if ptr.Deref(pa.DefaultNotReadyTolerationSeconds, -1) != tc.notReady || ptr.Deref(pa.DefaultUnreachableTolerationSeconds, -1) != tc.unreachable {
			t.Errorf("%v: got %v/%v, want %d/%d", tc.args, ptr.Deref(pa.DefaultNotReadyTolerationSeconds, -1), ptr.Deref(pa.DefaultUnreachableTolerationSeconds, -1), tc.notReady, tc.unreachable)
		}
	}
	sets := &namedFlagSets{}
	o := NewServeOptions()
	o.AddFlags(sets)
	if sets.FlagSet("admission").Lookup("default-not-ready-toleration-seconds") == nil {
		t.Error("kapi serve lacks --default-not-ready-toleration-seconds")
	}
}
