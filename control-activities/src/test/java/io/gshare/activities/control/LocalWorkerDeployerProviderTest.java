package io.gshare.activities.control;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Without the dev-only local deployer on the class path (as in every production jar), the mode is refused. */
class LocalWorkerDeployerProviderTest {

  @Test
  void withoutTheLocalDeployerTheLocalModeIsRefusedWithWhatToDo() {
    LocalWorkerSettings settings = new LocalWorkerSettings(Path.of("worker.jar"), Path.of("state"), null,
        "127.0.0.1:7233", "default", () -> "http://127.0.0.1:8080", 15, 300);
    assertThatThrownBy(() -> LocalWorkerDeployerProvider.load(settings)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("gshare.cluster-worker.deploy=local-process")
        .hasMessageContaining("gshare.cluster-worker.deploy=kubernetes");
  }
}
