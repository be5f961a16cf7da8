package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// newEnvtestAssetsCommand returns `kapi envtest-assets DIR`: it lays out a
// KUBEBUILDER_ASSETS folder in which kube-apiserver and etcd are links to
// this binary, for controller-runtime's envtest to run unmodified.
func newEnvtestAssetsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "envtest-assets DIR",
		Short: "Lay out a KUBEBUILDER_ASSETS folder whose kube-apiserver and etcd are kapi",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			if self, err = filepath.EvalSymlinks(self); err != nil {
				return err
			}
			if err := writeEnvtestAssets(args[0], self); err != nil {
				return err
			}
			abs, _ := filepath.Abs(args[0])
			fmt.Fprintf(cmd.OutOrStdout(), "export KUBEBUILDER_ASSETS=%s\n", abs)
			return nil
		},
	}
}

// writeEnvtestAssets links dir/kube-apiserver and dir/etcd to target,
// replacing links left by an earlier run but never a regular file.
func writeEnvtestAssets(dir, target string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{dropInKubeAPIServer, dropInEtcd} {
		link := filepath.Join(dir, name)
		if fi, err := os.Lstat(link); err == nil {
			if fi.Mode()&fs.ModeSymlink == 0 {
				return fmt.Errorf("%s exists and is not a symbolic link; not replacing it", link)
			}
			if err := os.Remove(link); err != nil {
				return err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Symlink(target, link); err != nil {
			return err
		}
	}
	return nil
}
