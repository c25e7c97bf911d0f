package io.gshare.api.support;

import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the history of an execution an integration test just drove, for the replay tests of the
 * workflows module (workflows/src/test/resources/histories). Only when {@code gshare.record-histories}
 * names a directory: {@code mvn verify -Dgshare.record-histories=$PWD/workflows/src/test/resources/histories}.
 */
public final class HistoryRecorder {

  private HistoryRecorder() {}

  public static void record(WorkflowClient client, String workflowId, String name) {
    String dir = System.getProperty("gshare.record-histories");
    if (dir == null || dir.isBlank()) {
      return;
    }
    try {
      Path target = Path.of(dir).resolve(name + ".json");
      Files.createDirectories(target.getParent());
      Files.writeString(target, client.fetchHistory(workflowId).toJson(true));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
