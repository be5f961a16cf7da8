// Command kapi is a Kubernetes API server in one binary.
package main

import (
	"fmt"
	"os"

	"github.com/kapi-dev/kapi/internal/cli"
)

func main() {
	if err := cli.NewKapiCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
