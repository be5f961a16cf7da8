// Command kubectl is the real kubectl, built from the k8s.io/kubectl module
// at the version go.mod pins, so black-box tests drive kapi with exactly
// what users run, without needing a kubectl installed on the machine.
//
// It mirrors upstream's cmd/kubectl without k8s.io/component-base/cli: the
// klog flags (-v and friends) are added directly.
package main

import (
	"flag"
	"os"

	"k8s.io/klog/v2"
	"k8s.io/kubectl/pkg/cmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()

	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	command.PersistentFlags().AddGoFlagSet(klogFlags)

	// kubectl prints its own errors through CheckErr, in kubectl's format
	// and with kubectl's exit codes; cobra printing them too would repeat
	// them.
	command.SilenceErrors = true
	err := command.Execute()
	klog.Flush()
	if err != nil {
		cmdutil.CheckErr(err)
		os.Exit(1)
	}
}
