# gatesim: every target is a thin wrapper around go commands that also work without make.
GO           ?= go
PKG          ?= ./...
RAPID_CHECKS ?= 5000
# packages whose tests define -update (go test fails on a flag a package does not define)
GOLDEN_PKGS  ?= ./calibrate ./golden/... ./spec ./spec/topo ./spec/tuning ./cmd/gatesim ./algos ./conformance ./tuner ./oracle ./plan
FUZZTIME     ?= 20s
FUZZMINTIME  ?= 100x
BENCHTIME    ?= 1s
BIN          ?= bin/gatesim

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -hE '^[a-z][a-zA-Z_-]*:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build bin/gatesim (cgo on for the hw package where a C compiler exists)
	$(GO) build -o $(BIN) ./cmd/gatesim

example-tuner: ## build bin/libnccl-tuner-force.so (the v5 test tuner forcing Ring/Simple) for the README's --tuner example
	@mkdir -p $(dir $(BIN))
	$${CC:-cc} -shared -fPIC -O1 -Wall -DMODE=1 -o $(dir $(BIN))libnccl-tuner-force.so tuner/testdata/tuners/tuner_v5.c

demo: ## the main job on the embedded default: the design scenario, gate by gate, 2.22.3 and 2.28.9 side by side
	$(GO) run ./cmd/gatesim demo

test: ## unit, golden, property (bounded) and short fuzz-seed tests; what CI runs
	$(GO) vet $(PKG)
	$(GO) test -count=1 -timeout 30m $(PKG)
	CGO_ENABLED=0 $(GO) build ./...

check: ## gofmt, go vet, go mod tidy -diff
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1)
	$(GO) vet $(PKG)
	$(GO) mod tidy -diff

golden: ## rewrite golden files from the current model (review the diff!)
	# calibrate first: it rewrites the embedded h200x2 profile that sim's goldens print
	$(GO) test -count=1 -timeout 30m $(filter ./calibrate,$(GOLDEN_PKGS)) -update
	$(GO) test -count=1 -timeout 30m $(filter-out ./calibrate,$(GOLDEN_PKGS)) -update

browser: ## headless Chromium loads whatif's index.html and diagnose --html's page (needs: apt-get install chromium)
	$(GO) build -o $(BIN) ./cmd/gatesim
	cd tools/browser && GATESIM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 ./...

props: ## long property runs (RAPID_CHECKS each; go test's 10-minute default would cut them short)
	$(GO) test -count=1 -timeout 60m -v ./properties/... -rapid.checks=$(RAPID_CHECKS)

hostile: build ## every hostile input of the limits review against bin/gatesim, under a 2 GB ulimit -v (minutes)
	./scripts/hostile.sh $(BIN)

fuzz: ## run every fuzz target for FUZZTIME each (minimising each new input at most FUZZMINTIME: 100 executions); prints executions per target
	FUZZMINTIME=$(FUZZMINTIME) ./scripts/fuzz.sh $(FUZZTIME)

bench: ## benchmarks (figures go in the README; never asserted)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=$(BENCHTIME) $(PKG)

.PHONY: help build example-tuner demo test check golden browser props fuzz hostile bench
