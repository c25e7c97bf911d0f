package io.gshare.sim.kube;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where the real Kubernetes binaries are: {@code .tools/bin} of the repository, built by {@code hack/tools.sh}
 * ({@code hack/kube-tools/build.sh}). Found from the {@code gshare.tools.dir} system property, the
 * {@code GSHARE_TOOLS_DIR} variable, or by walking up from the working directory to a {@code .tools} that holds them.
 */
public record KubeTools(Path dir) {

  static final List<String> BINARIES =
      List.of("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "kubectl");

  /** The tools of this checkout, or an IllegalStateException that says how to get them. */
  public static KubeTools locate() {
    Optional<Path> explicit = Optional.ofNullable(System.getProperty("gshare.tools.dir"))
        .or(() -> Optional.ofNullable(System.getenv("GSHARE_TOOLS_DIR"))).map(Path::of);
    if (explicit.isPresent()) {
      return require(explicit.get());
    }
    for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
      Path candidate = at.resolve(".tools");
      if (Files.isExecutable(candidate.resolve("bin/kube-apiserver"))) {
        return require(candidate);
      }
    }
    throw new IllegalStateException("no .tools/bin/kube-apiserver above " + Path.of("").toAbsolutePath()
        + ": run make tools (hack/tools.sh builds Kubernetes, etcd and KWOK once per machine)");
  }

  private static KubeTools require(Path dir) {
    KubeTools tools = new KubeTools(dir.toAbsolutePath());
    for (String binary : BINARIES) {
      if (!Files.isExecutable(tools.binary(binary))) {
        throw new IllegalStateException(tools.binary(binary) + " is missing: run make tools (hack/tools.sh)");
      }
    }
    for (Path file : List.of(tools.kwokStages(), tools.kwokStageCrd())) {
      if (!Files.isRegularFile(file)) {
        throw new IllegalStateException(file + " is missing: run make tools (hack/tools.sh)");
      }
    }
    return tools;
  }

  public Path binary(String name) {
    return dir.resolve("bin").resolve(name);
  }

  /** KWOK's Stage objects (its binary ships none), copied from its module by the build. */
  public Path kwokStages() {
    return dir.resolve("kube/kwok-stages.yaml");
  }

  /** KWOK's Stage CRD, copied from its module by the build: KWOK reads its stages as objects of it. */
  public Path kwokStageCrd() {
    return dir.resolve("kube/kwok-stage-crd.yaml");
  }

  public Path kubectl() {
    return binary("kubectl");
  }

  public Path helm() {
    return binary("helm");
  }
}
