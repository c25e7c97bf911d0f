# gShare: the two commands a newcomer needs are `make dev` and `make test` (see README.md).
SHELL := /bin/bash
MVN ?= mvn -B -ntp
DEV_ARGS ?=
CLUSTERS ?= 1

.PHONY: help build dev test test-java test-shell tools bench-inventory bench-allocation bench-sessions bench-scale bench-admission clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build every module's jars, skipping tests
	$(MVN) -q -DskipTests package

dev: tools build ## build, then start gShare with everything embedded (Ctrl-C stops it); CLUSTERS=2 attaches two simulated clusters; DEV_ARGS="--help" lists options
	java -jar dev-runtime/target/gshare-dev.jar --clusters $(CLUSTERS) $(DEV_ARGS)

tools: ## install kubectl, helm, the Temporal CLI (its dev server and Web UI) and Prometheus into .tools/bin
	hack/tools.sh

test: tools test-java test-shell ## run every test: unit, integration (real PostgreSQL, the Temporal dev server, simulator), shell

test-java: ## Maven unit (*Test) and integration (*IT) tests
	$(MVN) verify

test-shell: ## shellcheck and bats over hack/
	@if [ -x hack/test/run.sh ]; then hack/test/run.sh; else echo "no shell tests yet"; fi

bench-inventory: tools ## benchmark: 50 clusters x 200 nodes x 8 GPUs of inventory reports against the real api (prints figures)
	$(MVN) -q -DskipTests install
	$(MVN) -q -pl api exec:java -Dexec.mainClass=io.gshare.api.bench.InventoryBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)"

bench-allocation: tools ## benchmark: 32 concurrent clients placing GPU slices (prints allocations/s, latency, oversubscriptions)
	$(MVN) -q -DskipTests install
	$(MVN) -q -pl api exec:java -Dexec.mainClass=io.gshare.api.bench.AllocationBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)"

bench-admission: tools ## benchmark: today's create (transaction, then eager start) against Update-With-Start (placement in the workflow), 32 clients (prints p50/p99 per path)
	$(MVN) -q -DskipTests install
	$(MVN) -q -pl api exec:java -Dexec.mainClass=io.gshare.api.bench.AdmissionPathBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)"

bench-sessions: tools build ## benchmark: a ramp of users (BENCH_ARGS="8,32,64,128 2") running session lifecycles on the dev runtime (lifecycles/s, p50/p99 per command, CPU per lifecycle per process, the raw minimum)
	$(MVN) -q -pl dev-runtime test-compile exec:java -Dexec.mainClass=io.gshare.dev.bench.SessionBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)"

bench-scale: tools ## benchmark: 4 clusters x 250 nodes x 8 GPUs, 10,000 sessions: status/inventory reports, metering sweep, heap, session list (prints figures)
	$(MVN) -q -DskipTests install
	$(MVN) -q -pl api exec:java -Dexec.mainClass=io.gshare.api.bench.ScaleBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)" -Dgshare.temporal.cli=$(CURDIR)/.tools/bin/temporal

clean: ## remove build output and downloaded tools
	$(MVN) -q clean
	rm -rf .tools
