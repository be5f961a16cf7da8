// Command benchlocal is `make bench`: it builds kapi, measures it on the
// memory and embedded etcd backends with `kapi bench` and `kapi bench
// startup`, and writes bench/results/<date>.{json,md,svg}. Arguments after
// "--" (make's BENCH_ARGS) pass through to `kapi bench`:
//
//	make bench BENCH_ARGS="--objects 2000"
//	go run ./hack/benchlocal -backends memory -- create list --objects 500
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kapi-dev/kapi/internal/bench/local"
)

func main() {
	c := local.Config{Log: os.Stderr}
	var backends string
	flag.StringVar(&c.Binary, "binary", "bin/kapi", "The kapi binary to build and measure.")
	flag.BoolVar(&c.Build, "build", true, "Build the binary first (go build -o BINARY ./cmd/kapi).")
	flag.StringVar(&backends, "backends", "memory,etcd3", "Storage backends to measure, comma separated.")
	flag.IntVar(&c.StartupRuns, "startup-runs", 5, "Runs of the startup measurement per backend.")
	flag.StringVar(&c.OutDir, "out", "bench/results", "Directory for <date>.json, <date>.md and <date>.svg.")
	flag.Parse()
	c.Backends = strings.Split(backends, ",")
	c.BenchArgs = flag.Args()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p, err := local.Run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "make bench:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s, %s and %s\n", p.JSON, p.Markdown, p.SVG)
	if md, err := os.ReadFile(p.Markdown); err == nil {
		fmt.Print(string(md))
	}
}
