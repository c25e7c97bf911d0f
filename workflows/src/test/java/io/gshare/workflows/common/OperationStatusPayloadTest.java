package io.gshare.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operation's and its steps' statuses were strings in Temporal's payloads: typed, they keep those spellings, so
 * recorded histories and stored steps still read and new payloads read the same to older code.
 */
class OperationStatusPayloadTest {

  private final DataConverter converter = DefaultDataConverter.STANDARD_INSTANCE;

  @Test
  void aProgressIsWrittenWithTheSpellingsTheStringsHad() {
    OperationProgress progress = new OperationProgress("node-drain-nod_1", "node.drain", "nod_1",
        OperationStatus.RUNNING, List.of(new OperationStep("cordon", StepStatus.DONE, "set", 1, 2),
            new OperationStep("sessions", StepStatus.PENDING, null, 0, 0)), null);
    String json = converter.toPayload(progress).orElseThrow().getData().toString(StandardCharsets.UTF_8);

    assertThat(json).contains("\"status\":\"running\"", "\"status\":\"done\"", "\"status\":\"pending\"")
        .doesNotContain("RUNNING", "DONE", "PENDING");
  }

  @Test
  void aPayloadWrittenWhenTheStatusesWereStringsReads() {
    OperationProgress read = converter.fromPayload(payload("""
        {"operationId":"a","kind":"cluster.attach","objectId":"clu_1","status":"failed",
         "steps":[{"name":"probe","status":"failed","detail":"no","startedAt":1,"endedAt":2}],"error":"no"}"""),
        OperationProgress.class, OperationProgress.class);

    assertThat(read.status()).isEqualTo(OperationStatus.FAILED);
    assertThat(read.steps()).extracting(OperationStep::status).containsExactly(StepStatus.FAILED);
    assertThatThrownBy(() -> converter.fromPayload(payload("{\"status\":\"RUNNING\"}"), OperationProgress.class,
        OperationProgress.class)).isInstanceOf(DataConverterException.class);
  }

  private static Payload payload(String json) {
    return Payload.newBuilder().putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFromUtf8(json)).build();
  }
}
