# cardscan: build, test, benchmark.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
GOBIN ?= $(shell $(GO) env GOPATH)/bin

.PHONY: all build test lint vet fmt-check staticcheck unit fuzz-seeds bench clean

all: build

build:
	$(GO) build -o bin/cardscan ./cmd/cardscan

# The one command that must pass on a fresh machine.
test: fmt-check vet staticcheck unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	@command -v $(GOBIN)/staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GOBIN)/staticcheck ./...

unit:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run=NONE -bench=. -benchmem ./fastvalidate/

clean:
	rm -rf bin
