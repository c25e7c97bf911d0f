# gShare: the two commands a newcomer needs are `make dev` and `make test` (see README.md).
SHELL := /bin/bash
MVN ?= mvn -B -ntp
DEV_ARGS ?=
CLUSTERS ?= 1
API_REPLICAS ?= 1

.PHONY: help build fmt cli dev test test-java test-e2e test-faults test-shell test-images base-image images images-local images-push tools bench-inventory bench-allocation bench-sessions bench-scale bench-admission bench-gateway clean deploy-incluster prod-deploy deploy-temporal deploy-monitoring

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build every module's jars, skipping tests
	$(MVN) -q -DskipTests package

dev: tools build ## build, then start gShare with everything embedded (Ctrl-C stops it); CLUSTERS=2 attaches two simulated clusters; API_REPLICAS=2 runs two api processes behind nginx; DEV_ARGS="--help" lists options
	java -jar dev-runtime/target/gshare-dev.jar --clusters $(CLUSTERS) --api-replicas $(API_REPLICAS) $(DEV_ARGS)

fmt: ## format the Java sources (spotless: imports ordered, none unused, no tabs or trailing blanks); every build checks it
	$(MVN) -q spotless:apply

cli: ## build the gshare CLI: cli/target/gshare-cli-exec.jar, run by cli/bin/gshare (put cli/bin on PATH); docs/cli.md
	$(MVN) -q -DskipTests package -pl cli

tools: ## install a real Kubernetes (built once per machine: apiserver, controller-manager, scheduler, kubectl, etcd, KWOK), helm, the Temporal CLI (its dev server and Web UI) and Prometheus into .tools/bin, and the pinned Redocly CLI into api/openapi-lint
	hack/tools.sh

test: tools test-java test-images ## run every test: unit, integration (real PostgreSQL, the Temporal dev server, simulator), shell, image configuration, the console in a browser
	@# The shell tests and the browser suite run at once (each keeps about one core busy; docs/development/tests.md,
	@# "Test time"). What they install with apt (shellcheck, bats, chromium) comes first, one after the other: apt's
	@# lock admits one install at a time.
	SKIP_SHELLCHECK=1 SKIP_BATS=1 hack/test/run.sh >/dev/null
	hack/e2e.sh --install
	$(MAKE) --no-print-directory -j2 --output-sync=target test-shell test-e2e

test-java: ## Maven unit (*Test) and integration (*IT) tests
	$(MVN) verify

# The images' base: pinned (the digest in pom.xml; needs its registry), local (a Java 17 runtime jlinked from this
# machine's JDK by hack/base-image.py, for machines no registry answers), or auto (pinned, else local, saying so).
IMAGE_BASE ?= auto
LOCAL_BASE = .tools/base/gshare-jre17.tar
JIB = $(MVN) -q -Pimages -DskipTests package -pl api,cluster-worker -am
JIB_LOCAL = $(JIB) -Dgshare.image.base=tar://$(CURDIR)/$(LOCAL_BASE) -Dgshare.image.base.name=gshare-local-jre17
# The configuration and contents of both tarballs, then each entrypoint run from the unpacked layers (chroot, as
# the image's user; skipped with a note when not root): the api's sign-internal-jwt without arguments must print its usage and exit 2, the worker's
# --help its environment; and docs/operator/identity.md's manual command, exactly as kubectl exec runs it, reaches
# the command's key lookup (the key directory here holds no key set, so it names the file it looked for).
IMAGE_CHECKS = hack/check-image.py api/target/jib-image.tar --main-class io.gshare.api.GshareApiApplication --port 8080 --port 9090 --title gshare-api \
	  --run=sign-internal-jwt --expect-exit 2 --expect-output "usage: gshare-api sign-internal-jwt" && \
	hack/check-image.py api/target/jib-image.tar --main-class io.gshare.api.GshareApiApplication --port 8080 --port 9090 --title gshare-api \
	  --exec="java -cp @/app/jib-classpath-file @/app/jib-main-class-file sign-internal-jwt operator:clu_manual --ttl 604800" \
	  --env GSHARE_SECURITY_KEY_DIR=/tmp --expect-exit 1 --expect-output "no internal-signing signing keys in /tmp/internal-signing.jwks.json" && \
	hack/check-image.py cluster-worker/target/jib-image.tar --main-class io.gshare.clusterworker.ClusterWorkerMain --title gshare-cluster-worker \
	  --run=--help --expect-output GSHARE_CLUSTER_ID

base-image: ## build the local base image (.tools/base/gshare-jre17.tar): a Java 17 runtime jlinked from this machine's JDK
	python3 hack/base-image.py $(LOCAL_BASE)

images: ## build the api and cluster-worker images (Jib, no Docker daemon) as api/target/jib-image.tar and cluster-worker/target/jib-image.tar, and check them; IMAGE_BASE=pinned|local|auto (default: the pinned base, else the local one)
	@case "$(IMAGE_BASE)" in \
	  pinned) $(JIB) ;; \
	  local) $(MAKE) --no-print-directory base-image && $(JIB_LOCAL) ;; \
	  auto) $(JIB) -Djib.httpTimeout=10000 || { \
	    echo "images: the pinned base (pom.xml gshare.image.base) could not be fetched; building on the local base instead (a Java 17 runtime jlinked from this machine's JDK; the images' org.opencontainers.image.base.name label says gshare-local-jre17). IMAGE_BASE=pinned makes this an error." >&2; \
	    $(MAKE) --no-print-directory base-image && $(JIB_LOCAL); } ;; \
	  *) echo "usage: make images [IMAGE_BASE=pinned|local|auto]" >&2; exit 2 ;; \
	esac
	$(IMAGE_CHECKS)

images-local: base-image ## the same images on the local base only (no registry is tried), checked and run
	$(JIB_LOCAL)
	$(IMAGE_CHECKS)

images-push: ## push the images: REG=registry.example.com/gshare make images-push (registry credentials from docker's config or a credential helper); on the pinned base unless IMAGE_BASE=local
	@if [ -z "$(REG)" ]; then echo "usage: REG=<registry>[/path] make images-push" >&2; exit 2; fi
	@if [ "$(IMAGE_BASE)" = local ]; then $(MAKE) --no-print-directory base-image && $(JIB_LOCAL) jib:build -Dgshare.image.registry=$(REG); \
	 else $(JIB) jib:build -Dgshare.image.registry=$(REG); fi

test-images: images-local ## build the images on the local base, check their configuration (entrypoint, user, ports, labels, contents) and run each entrypoint

test-e2e: ## the console in a real browser (Debian's chromium, installed when missing; playwright-core) against the dev runtime, its OIDC provider and nginx; needs the jars (make build or test-java); screenshots in e2e/target/screenshots
	hack/e2e.sh

test-faults: tools ## the fault and bad-input suite, slow scenarios too: each failure injected into the dev runtime's parts, the four invariants checked after each; prints the tables (target/fault-suite-*.txt)
	$(MVN) -q -DskipTests install
	$(MVN) verify -pl dev-runtime -Dit.test='FaultSuite*IT' -Dgshare.faults.excluded=none -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false
	@cat dev-runtime/target/fault-suite-*.txt

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

bench-gateway: tools ## benchmark: the Temporal gateway's cost, the same activity load straight to the frontend and through it, 32 workflows x 20 activities and one alone (prints activities/s, p50/p99 per activity, added latency, CPU)
	$(MVN) -q -DskipTests install
	$(MVN) -q -pl api exec:java -Dexec.mainClass=io.gshare.api.bench.GatewayBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)" -Dgshare.temporal.cli=$(CURDIR)/.tools/bin/temporal

bench-sessions: tools build ## benchmark: a ramp of users (BENCH_ARGS="8,32,64,128 2") running session lifecycles on the dev runtime (lifecycles/s, p50/p99 per command, CPU per lifecycle per process, the raw minimum)
	$(MVN) -q -pl dev-runtime test-compile exec:java -Dexec.mainClass=io.gshare.dev.bench.SessionBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)"

bench-scale: tools ## benchmark: 4 clusters x 250 nodes x 8 GPUs, 10,000 sessions: status/inventory reports, metering sweep, heap, session list (prints figures)
	$(MVN) -q -DskipTests install
	$(MVN) -q -pl api exec:java -Dexec.mainClass=io.gshare.api.bench.ScaleBench -Dexec.classpathScope=test -Dexec.args="$(BENCH_ARGS)" -Dgshare.temporal.cli=$(CURDIR)/.tools/bin/temporal

clean: ## remove build output and downloaded tools
	$(MVN) -q clean
	rm -rf .tools

deploy-incluster: ## helm upgrade --install gShare (charts/gshare, deploy/values/incluster.yaml) into the current kubectl context; DEPLOY_ARGS="--dry-run" prints the command, "--context NAME" picks another
	hack/deploy.sh incluster $(DEPLOY_ARGS)

prod-deploy: ## the production install: checks the CloudNativePG and external-secrets CRDs, then charts/gshare with deploy/values/dockerhub.yaml (DEPLOY_ARGS as above)
	hack/deploy.sh prod $(DEPLOY_ARGS)

deploy-temporal: ## install or upgrade Temporal (the official chart, deploy/temporal/values.yaml) as release temporal in namespace temporal (DEPLOY_ARGS as above)
	hack/deploy.sh temporal $(DEPLOY_ARGS)

deploy-monitoring: ## kubectl apply -f deploy/monitoring/monitoring-stack.yaml: dcgm-exporter, node-exporter, kube-state-metrics and Prometheus (30 days, ClusterIP only) in namespace monitoring (DEPLOY_ARGS as above)
	hack/deploy.sh monitoring $(DEPLOY_ARGS)
