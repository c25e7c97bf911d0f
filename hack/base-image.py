#!/usr/bin/env python3
"""Builds a Java 17 base image tarball from this machine's JDK, for building the images where no registry answers.

Usage: hack/base-image.py OUTPUT.tar [--jdk DIR] [--force]

The image holds a runtime jlinked from the JDK's jmods (the Java SE modules and the jdk.* modules a Spring Boot
service uses), the shared libraries that runtime links to (copied from this machine, found with ldd), its CA
certificates, /etc/passwd and /etc/group naming root and nonroot (65532, as distroless images do) and a /tmp
that everyone may write. Its config puts the runtime on PATH and sets JAVA_HOME. It is written in `docker save`
format, which Jib reads as a base with `tar://`. Layer contents and times are deterministic, so the same JDK
gives the same digest; an existing OUTPUT built from the same JDK is kept unless --force.

Exits 1 when the JDK has no jmods or jlink fails, 2 on a usage error.
"""
import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

JAVA_HOME = "opt/java/openjdk"
MODULES = [
    "java.se", "jdk.crypto.ec", "jdk.crypto.cryptoki", "jdk.unsupported", "jdk.zipfs", "jdk.naming.dns",
    "jdk.localedata", "jdk.charsets", "jdk.management", "jdk.management.agent", "jdk.jfr", "jdk.net",
    "jdk.httpserver", "jdk.jdwp.agent",
]
PASSWD = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
GROUP = "root:x:0:\nnonroot:x:65532:\n"


def fail(message):
    print(f"base-image: {message}", file=sys.stderr)
    sys.exit(1)


def jdk_release(jdk):
    with open(os.path.join(jdk, "release"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("JAVA_VERSION="):
                return line.split("=", 1)[1].strip().strip('"')
    return "unknown"


def shared_libraries(root):
    """Absolute paths of the host libraries the runtime's binaries and libraries link to (ldd), loader included."""
    needed = set()
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            if not (name.endswith(".so") or directory.endswith("/bin")) or os.path.islink(path):
                continue
            out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if "=>" in parts and len(parts) > parts.index("=>") + 1 and parts[parts.index("=>") + 1].startswith("/"):
                    needed.add(parts[parts.index("=>") + 1])
                elif parts and parts[0].startswith("/"):
                    needed.add(parts[0])
    # a library found inside the runtime itself is already there
    return sorted(p for p in needed if not os.path.realpath(p).startswith(os.path.realpath(root)))


def add_file(layer, arcname, data, mode=0o644):
    info = tarfile.TarInfo(arcname)
    info.size, info.mode, info.mtime = len(data), mode, 0
    layer.addfile(info, io.BytesIO(data))


def add_dir(layer, arcname, mode=0o755):
    info = tarfile.TarInfo(arcname)
    info.type, info.mode, info.mtime = tarfile.DIRTYPE, mode, 0
    layer.addfile(info)


def build_layer(rootfs):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as layer:
        for directory, dirs, files in os.walk(rootfs):
            dirs.sort()
            rel = os.path.relpath(directory, rootfs)
            if rel != ".":
                add_dir(layer, rel, 0o1777 if rel == "tmp" else 0o755)
            for name in sorted(files):
                path = os.path.join(directory, name)
                info = layer.gettarinfo(path, os.path.normpath(os.path.join(rel, name)))
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                if info.isreg():
                    with open(path, "rb") as f:
                        layer.addfile(info, f)
                else:
                    layer.addfile(info)
    return buffer.getvalue()


def main():
    parser = argparse.ArgumentParser(prog="hack/base-image.py", description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--jdk", default=os.environ.get("JAVA_HOME") or "/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()

    jmods = os.path.join(args.jdk, "jmods")
    if not os.path.isdir(jmods):
        fail(f"{args.jdk} has no jmods/ (jlink needs a full JDK, e.g. openjdk-17-jdk-headless); pass --jdk DIR")
    version = jdk_release(args.jdk)
    if not version.startswith("17"):
        fail(f"{args.jdk} is Java {version}; the images run Java 17 (pass --jdk DIR)")
    stamp = f"{args.output}.jdk"
    if not args.force and os.path.exists(args.output) and os.path.exists(stamp):
        with open(stamp, encoding="utf-8") as f:
            if f.read().strip() == f"{os.path.realpath(args.jdk)} {version}":
                print(f"base-image: {args.output} is up to date (Java {version})", file=sys.stderr)
                return

    with tempfile.TemporaryDirectory(prefix="gshare-base-") as work:
        rootfs = os.path.join(work, "rootfs")
        runtime = os.path.join(rootfs, JAVA_HOME)
        jlink = os.path.join(args.jdk, "bin", "jlink")
        result = subprocess.run([jlink, "--module-path", jmods, "--add-modules", ",".join(MODULES),
                                 "--strip-debug", "--no-man-pages", "--no-header-files", "--compress=2",
                                 "--output", runtime], capture_output=True, text=True)
        if result.returncode != 0:
            fail(f"jlink failed: {result.stderr.strip()}")
        # Debian's JDK links its CA store and security files out of /etc; the image needs the files themselves.
        security = os.path.join(runtime, "lib", "security")
        for name in ("cacerts", "blocked.certs", "default.policy", "public_suffix_list.dat"):
            source = os.path.join(args.jdk, "lib", "security", name)
            target = os.path.join(security, name)
            if os.path.exists(source):
                if os.path.lexists(target):
                    os.remove(target)
                shutil.copyfile(os.path.realpath(source), target)
        for library in shared_libraries(runtime):
            target = os.path.join(rootfs, library.lstrip("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.realpath(library), target)
            os.chmod(target, 0o755)
        for name, text in (("etc/passwd", PASSWD), ("etc/group", GROUP)):
            os.makedirs(os.path.join(rootfs, "etc"), exist_ok=True)
            with open(os.path.join(rootfs, name), "w", encoding="utf-8") as f:
                f.write(text)
        for name in ("tmp", "home/nonroot"):
            os.makedirs(os.path.join(rootfs, name), exist_ok=True)
        layer = build_layer(rootfs)

    layer_digest = hashlib.sha256(layer).hexdigest()
    config = {
        "architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
        "config": {
            "Env": [f"PATH=/{JAVA_HOME}/bin:/usr/local/bin:/usr/bin:/bin", f"JAVA_HOME=/{JAVA_HOME}",
                    "LANG=C.UTF-8"],
            "Labels": {"org.opencontainers.image.title": "gshare-local-jre17",
                       "org.opencontainers.image.version": version,
                       "org.opencontainers.image.description":
                           f"Java {version} runtime jlinked by hack/base-image.py from this machine's JDK"},
        },
        "rootfs": {"type": "layers", "diff_ids": [f"sha256:{layer_digest}"]},
        "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "hack/base-image.py"}],
    }
    config_bytes = json.dumps(config, sort_keys=True).encode()
    config_name = f"{hashlib.sha256(config_bytes).hexdigest()}.json"
    manifest = [{"Config": config_name, "RepoTags": ["gshare-local-jre17:latest"],
                 "Layers": [f"{layer_digest}/layer.tar"]}]
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    partial = f"{args.output}.partial"
    with tarfile.open(partial, "w") as image:
        add_file(image, config_name, config_bytes)
        add_file(image, f"{layer_digest}/layer.tar", layer)
        add_file(image, "manifest.json", json.dumps(manifest).encode())
    os.replace(partial, args.output)
    with open(stamp, "w", encoding="utf-8") as f:
        f.write(f"{os.path.realpath(args.jdk)} {version}\n")
    print(f"base-image: wrote {args.output} (Java {version}, {len(layer) // (1024 * 1024)} MiB layer)", file=sys.stderr)


if __name__ == "__main__":
    main()
