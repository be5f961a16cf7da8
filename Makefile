# The few targets people expect; each is a one-liner over the Go tool.
.PHONY: build test test-e2e bench lint run

build:
	go build -o bin/kapi ./cmd/kapi

run:
	go run ./cmd/kapi serve

test:
	go test -race ./...

test-e2e:
	go test -race ./test/e2e/...

bench:
	go test -run '^$$' -bench . -benchmem ./...

lint:
	gofmt -l . && go vet ./...
