package io.gshare.localdeployer;

import io.gshare.activities.control.LocalWorkerDeployerProvider;
import io.gshare.activities.control.LocalWorkerSettings;
import io.gshare.activities.control.WorkerDeployer;

/** Registers {@link LocalProcessWorkerDeployer} with the api ({@code META-INF/services}): found only where present. */
public final class LocalProcessDeployers implements LocalWorkerDeployerProvider {

  @Override
  public WorkerDeployer create(LocalWorkerSettings settings) {
    return new LocalProcessWorkerDeployer(settings);
  }
}
