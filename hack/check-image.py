#!/usr/bin/env python3
"""Checks an image tarball that `make images` (Jib's buildTar) wrote: its configuration and its contents.

Usage: hack/check-image.py TARBALL --main-class CLASS [--port N ...] [--title TITLE] [--version VERSION]
                            [--run=ARGS | --exec=COMMAND] [--env NAME=VALUE ...] [--expect-exit N]
                            [--expect-output TEXT]

Checks: the entrypoint runs java on the Jib classpath with CLASS; the user is not root; exactly the given
ports are exposed; the OCI labels title, version and base name are set; the layers hold the classpath and
main-class files, CLASS itself and the dependency jars. With --run (as root, on an image with a base), it
unpacks the layers and runs the image's entrypoint with the given arguments the way a runtime would: chrooted
into them, as the image's user, in its working directory, with its environment; the exit code and a text of
the output must match. --exec runs a whole command line instead, as `kubectl exec` does in a running
container (the operator guides' commands), with --env added to the image's environment. Prints what it checked; exits 1 on the first mismatch (with the reason), 2 on a usage
error.
"""
import argparse
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile


def fail(message):
    print(f"check-image: {message}", file=sys.stderr)
    sys.exit(1)


def layer_paths(image, layer_name):
    data = image.extractfile(layer_name).read()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as layer:
        return {m.name.lstrip("./") for m in layer.getmembers()}


def run_entrypoint(image, manifest, c, arguments, expect_exit, expect_output, command=None, extra_env=()):
    """Runs the entrypoint with ARGUMENTS (or COMMAND alone) inside the unpacked layers, as the image's user."""
    if os.geteuid() != 0:
        print("check-image: --run skipped: chroot needs root", file=sys.stderr)
        return "not run (not root)"
    root = tempfile.mkdtemp(prefix="gshare-image-")
    os.chmod(root, 0o755)  # it becomes the image user's /
    try:
        for layer_name in manifest["Layers"]:
            data = image.extractfile(layer_name).read()
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as layer:
                layer.extractall(root, filter="tar" if hasattr(tarfile, "tar_filter") else None)
        # A runtime mounts /proc; the JVM's loader needs it to resolve $ORIGIN in its library path.
        proc = os.path.join(root, "proc")
        os.makedirs(proc, exist_ok=True)
        mounted = subprocess.run(["mount", "-t", "proc", "proc", proc], capture_output=True).returncode == 0
        uid, _, gid = str(c.get("User")).partition(":")
        env = dict(e.split("=", 1) for e in c.get("Env") or [])
        env.setdefault("PATH", "/usr/bin:/bin")
        env.update(dict(e.split("=", 1) for e in extra_env))
        line = list(command) if command else list(c["Entrypoint"]) + list(arguments)
        shown = " ".join(command if command else arguments)
        workdir = c.get("WorkingDir") or "/"

        def enter():
            os.chroot(root)
            os.chdir(workdir)
            os.setgroups([])
            os.setgid(int(gid or uid))
            os.setuid(int(uid))

        try:
            done = subprocess.run(line, env=env, preexec_fn=enter,
                                  capture_output=True, text=True, timeout=120)
        except FileNotFoundError:
            fail(f"{line[0]} is not on the image's PATH {env['PATH']} (an image without a base?)")
        finally:
            if mounted:
                subprocess.run(["umount", proc], capture_output=True)
        output = done.stdout + done.stderr
        if done.returncode != expect_exit:
            fail(f"{shown} exited {done.returncode}, expected {expect_exit}: {output.strip()[-2000:]}")
        if expect_output and expect_output not in output:
            fail(f"{shown} printed no {expect_output!r}: {output.strip()[-2000:]}")
        return f"ran {shown or '(no arguments)'} as {c.get('User')}: exit {done.returncode}"
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(prog="hack/check-image.py", description=__doc__.splitlines()[0])
    parser.add_argument("tarball")
    parser.add_argument("--main-class", required=True)
    parser.add_argument("--port", type=int, action="append", default=[])
    parser.add_argument("--title")
    parser.add_argument("--version")
    parser.add_argument("--run", metavar="ARGS",
                        help="run the entrypoint with these arguments (one string, split as a shell would; "
                             "--run=--help) in a chroot of the layers")
    parser.add_argument("--exec", dest="exec_line", metavar="COMMAND",
                        help="run this whole command line in the chroot instead of the entrypoint, as kubectl exec "
                             "would in a running container")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="add to the image's environment for --run or --exec")
    parser.add_argument("--expect-exit", type=int, default=0)
    parser.add_argument("--expect-output", default="")
    args = parser.parse_args()
    if args.run is not None and args.exec_line is not None:
        parser.error("--run and --exec exclude each other")
    if any("=" not in e for e in args.env):
        parser.error("--env takes NAME=VALUE")

    try:
        image = tarfile.open(args.tarball)
    except (OSError, tarfile.TarError) as e:
        fail(f"cannot read {args.tarball}: {e} (build it with make images-local)")
    with image:
        manifest = json.load(image.extractfile("manifest.json"))[0]
        config = json.load(image.extractfile(manifest["Config"]))
        c = config.get("config", {})

        entrypoint = c.get("Entrypoint") or []
        if not entrypoint or entrypoint[0] != "java" or entrypoint[-1] != args.main_class \
                or "@/app/jib-classpath-file" not in entrypoint:
            fail(f"entrypoint {entrypoint} does not run java -cp @/app/jib-classpath-file {args.main_class}")
        user = str(c.get("User", ""))
        if user in ("", "0", "root") or user.startswith("0:") or user.startswith("root:"):
            fail(f"the image runs as root (User={user!r})")
        ports = sorted(int(p.split("/")[0]) for p in (c.get("ExposedPorts") or {}))
        if ports != sorted(args.port):
            fail(f"exposed ports {ports}, expected {sorted(args.port)}")
        labels = c.get("Labels") or {}
        for key, want in (("org.opencontainers.image.title", args.title),
                          ("org.opencontainers.image.version", args.version),
                          ("org.opencontainers.image.base.name", None)):
            if not labels.get(key):
                fail(f"label {key} is missing")
            if want is not None and labels[key] != want:
                fail(f"label {key} is {labels[key]!r}, expected {want!r}")
        if config.get("os") != "linux":
            fail(f"os is {config.get('os')!r}, not linux")

        paths = set()
        for layer in manifest["Layers"]:
            paths |= layer_paths(image, layer)
        main_class_file = "app/classes/" + args.main_class.replace(".", "/") + ".class"
        for needed in ("app/jib-classpath-file", "app/jib-main-class-file", main_class_file):
            if needed not in paths:
                fail(f"{needed} is not in the image")
        jars = sorted(p for p in paths if p.startswith("app/libs/") and p.endswith(".jar"))
        if len(jars) < 10:
            fail(f"only {len(jars)} dependency jars under /app/libs")
        ran = None
        if args.run is not None or args.exec_line is not None:
            ran = run_entrypoint(image, manifest, c, shlex.split(args.run or ""), args.expect_exit, args.expect_output,
                                 command=shlex.split(args.exec_line) if args.exec_line else None, extra_env=args.env)

    print(f"check-image: {args.tarball}: entrypoint {' '.join(entrypoint)}; user {user}; ports {ports}; "
          f"{labels['org.opencontainers.image.title']} {labels['org.opencontainers.image.version']} on "
          f"{labels['org.opencontainers.image.base.name']}; {len(manifest['Layers'])} layers, {len(jars)} jars"
          + (f"; {ran}" if ran else ""))


if __name__ == "__main__":
    main()
