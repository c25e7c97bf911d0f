#!/usr/bin/env python3
"""check-api-callers.py - one client speaks gShare's public API.

Fails when a Java file outside the client module (client/) both uses java.net.http (HttpClient, HttpRequest) and
names a path under /api/v1: such a file builds requests to the public API by hand instead of through
io.gshare.client.GshareClient. Kubernetes and Prometheus also serve paths under /api/v1; the files that speak those
(and only those) are listed below with the peer they speak.

Usage: hack/check-api-callers.py [--root DIR]      (default root: the repository holding this script)

Exit status: 0 when no file speaks /api/v1 by hand; 1 with one line per file on stderr; 2 on a usage error.
"""

import os
import re
import sys

# Files whose /api/v1 is another peer's API, not gShare's.
OTHER_PEERS = {
    "control-activities/src/main/java/io/gshare/activities/control/AlertWebhook.java": "a link to the console's alerts in a webhook body",
    "api/src/test/java/io/gshare/api/support/PrometheusServer.java": "Prometheus's HTTP API",
    "cluster-activities/src/main/java/io/gshare/activities/cluster/MetricQueryActivitiesImpl.java":
        "Prometheus's HTTP API",
    "cluster-worker/src/main/java/io/gshare/clusterworker/UsageReporter.java": "Prometheus's HTTP API",
    "cluster-worker/src/main/java/io/gshare/clusterworker/VolumeSyncReporter.java": "the Kubernetes node proxy",
}
# Modules whose /api/v1 is the Kubernetes API server's (the local Kubernetes, its fault proxy and their tests).
OTHER_PEER_MODULES = {"cluster-sim": "the Kubernetes API"}

USES_HTTP = re.compile(r"\bjava\.net\.http\.(HttpClient|HttpRequest|\*)")
API_PATH = re.compile(r"\"/api/v1\b")


def usage(message=None):
    if message:
        print(f"check-api-callers: {message}", file=sys.stderr)
    print("usage: hack/check-api-callers.py [--root DIR]", file=sys.stderr)
    sys.exit(2)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if arg == "--root" and args:
            root = args.pop(0)
        elif arg.startswith("--root="):
            root = arg.split("=", 1)[1]
        else:
            usage(f"unknown argument '{arg}'")
    if not os.path.isdir(os.path.join(root, "client")):
        usage(f"{root} has no client module")
    problems = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in (".git", "target", "node_modules", ".tools")]
        rel_dir = os.path.relpath(directory, root)
        module = rel_dir.split(os.sep)[0]
        if module in ("client",) or module in OTHER_PEER_MODULES:
            continue
        for name in files:
            if not name.endswith(".java"):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel in OTHER_PEERS:
                continue
            with open(os.path.join(directory, name), encoding="utf-8") as source:
                text = source.read()
            if USES_HTTP.search(text) and API_PATH.search(text):
                problems.append(f"{rel}: builds requests to /api/v1 with java.net.http; call the API through "
                                "io.gshare.client.GshareClient (client/)")
    for rel in OTHER_PEERS:
        if not os.path.isfile(os.path.join(root, rel)):
            problems.append(f"{rel}: listed as speaking another peer's /api/v1 but missing; drop it from the list")
    for problem in sorted(problems):
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
