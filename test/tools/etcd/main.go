// Command etcd runs one etcd member as its own process, built from
// go.etcd.io/etcd/server/v3/embed at the version go.mod pins, so that tests
// can run a real multi-member cluster, kill members and restart them
// without an etcd installed on the machine (package etcdcluster drives it).
//
// Its flags are a subset of etcd's, with etcd's names and meanings. Once the
// member has joined its cluster and serves clients it prints the line
// "ready" on stdout. SIGTERM or SIGINT stops it cleanly (exit status 0; a
// second signal kills it at once). etcd's own logs go to stderr, errors only
// unless --log-level says otherwise. Restarted with the same flags and
// --data-dir it rejoins its cluster.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

// readyLine is printed on stdout once the member serves clients.
const readyLine = "ready"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "etcd: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal, restore the default handling so that a
	// second one ends a slow shutdown.
	go func() {
		<-ctx.Done()
		stop()
	}()
	if err := serve(ctx, cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "etcd: %v\n", err)
		return 1
	}
	return 0
}

// serve runs etcd until ctx ends (a nil error) or etcd fails, and stops it
// before returning.
func serve(ctx context.Context, cfg *embed.Config, stdout io.Writer) error {
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer func() {
		e.Close()
		<-e.Server.StopNotify()
	}()
	ready := e.Server.ReadyNotify()
	for {
		select {
		case <-ready:
			fmt.Fprintln(stdout, readyLine)
			ready = nil
		case err := <-e.Err():
			return err
		case <-e.Server.StopNotify():
			return errors.New("etcd server stopped")
		case <-ctx.Done():
			return nil
		}
	}
}
