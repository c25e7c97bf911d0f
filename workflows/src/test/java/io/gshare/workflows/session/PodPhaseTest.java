package io.gshare.workflows.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A pod's phase is spelled as Kubernetes spells it, in Temporal's payloads too (recorded histories hold strings). */
class PodPhaseTest {

  private final DataConverter converter = DefaultDataConverter.STANDARD_INSTANCE;

  @Test
  void eachPhaseIsKubernetesSpellingAndAnUnknownOneReadsAsUnknown() {
    assertThat(PodPhase.RUNNING.wireName()).isEqualTo("Running");
    assertThat(PodPhase.SUCCEEDED.wireName()).isEqualTo("Succeeded");
    assertThat(PodPhase.of("Failed")).isEqualTo(PodPhase.FAILED);
    assertThat(PodPhase.of("running")).as("Kubernetes' spelling only").isEqualTo(PodPhase.UNKNOWN);
    assertThat(PodPhase.of(null)).isNull();
    assertThat(PodPhase.FAILED.ended()).isTrue();
    assertThat(PodPhase.RUNNING.ended()).isFalse();
  }

  @Test
  void aPodStateIsWrittenAndReadWithTheStringsSpelling() {
    String json = converter.toPayload(new PodState(PodPhase.RUNNING, "10.244.0.7", "gpu-1")).orElseThrow().getData()
        .toString(StandardCharsets.UTF_8);
    assertThat(json).contains("\"phase\":\"Running\"").doesNotContain("RUNNING");

    PodState recorded = converter.fromPayload(Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFromUtf8("{\"phase\":\"Pending\",\"podIp\":null,\"hostname\":\"gpu-1\"}")).build(),
        PodState.class, PodState.class);
    assertThat(recorded.phase()).isEqualTo(PodPhase.PENDING);
  }
}
