package io.gshare.activities.control;

import java.util.ServiceLoader;

/**
 * Where the local-process deployer comes from. It is dev-only (how the dev runtime and the tests run a worker beside
 * the api), so it ships in the {@code local-deployer} module, which only they put on the api's class path; a
 * production jar carries none, and refuses {@code gshare.cluster-worker.deploy=local-process} when it starts.
 */
public interface LocalWorkerDeployerProvider {

  WorkerDeployer create(LocalWorkerSettings settings);

  /** The deployer of the provider on the class path; an IllegalStateException saying what to do when none is. */
  static WorkerDeployer load(LocalWorkerSettings settings) {
    return ServiceLoader.load(LocalWorkerDeployerProvider.class, LocalWorkerDeployerProvider.class.getClassLoader())
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("gshare.cluster-worker.deploy=local-process needs the dev-only "
            + "local deployer (the local-deployer module), which this build does not carry: deploy workers with "
            + "gshare.cluster-worker.deploy=kubernetes, or run gShare with make dev"))
        .create(settings);
  }
}
