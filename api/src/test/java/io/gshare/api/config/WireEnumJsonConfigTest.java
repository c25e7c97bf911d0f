package io.gshare.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import io.gshare.core.node.GpuMode;
import io.gshare.core.node.NodeLiveness;
import io.gshare.workflows.session.SessionState;
import org.junit.jupiter.api.Test;
import org.springframework.http.converter.json.Jackson2ObjectMapperBuilder;

class WireEnumJsonConfigTest {

  record Node(NodeLiveness liveness, GpuMode gpuMode) {}

  enum Plain { ONE_TWO }

  record Mixed(SessionState state, Plain plain) {}

  private final ObjectMapper json = new Jackson2ObjectMapperBuilder()
      .modulesToInstall(new WireEnumJsonConfig().wireEnumModule()).build();

  @Test
  void aWireEnumIsWrittenAndReadByItsSpelling() throws Exception {
    assertThat(json.writeValueAsString(new Node(NodeLiveness.NOT_READY, null)))
        .isEqualTo("{\"liveness\":\"not_ready\",\"gpuMode\":null}");
    assertThat(json.readValue("{\"liveness\":\"offline\",\"gpuMode\":\"fractional\"}", Node.class))
        .isEqualTo(new Node(NodeLiveness.OFFLINE, GpuMode.FRACTIONAL));
    // An enum of another module (workflows), and one that is no wire enum, which keeps Jackson's default.
    assertThat(json.writeValueAsString(new Mixed(SessionState.RUNNING, Plain.ONE_TWO)))
        .isEqualTo("{\"state\":\"running\",\"plain\":\"ONE_TWO\"}");
  }

  @Test
  void theConstantsNameOrAnotherWordIsRefusedNamingTheSpellings() {
    for (String wrong : new String[] {"NOT_READY", "asleep", ""}) {
      assertThatThrownBy(() -> json.readValue("{\"liveness\":\"" + wrong + "\"}", Node.class)).as(wrong)
          .isInstanceOf(InvalidFormatException.class).hasMessageContaining("[ready, not_ready, offline]");
    }
  }
}
