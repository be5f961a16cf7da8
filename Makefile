# The few targets people expect; each is a one-liner over the Go tool.
.PHONY: build test test-e2e bench bench-go lint run

build:
	go build -o bin/kapi ./cmd/kapi

run:
	go run ./cmd/kapi serve

test:
	go test -race ./...

test-e2e:
	go test -race ./test/e2e/...

# kapi measured by `kapi bench` on both backends, into bench/results/;
# size it with e.g. BENCH_ARGS="--objects 2000".
bench:
	go run ./hack/benchlocal -- $(BENCH_ARGS)

bench-go:
	go test -run '^$$' -bench . -benchmem ./...

lint:
	gofmt -l . && go vet ./...
