package io.gshare.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.workflows.session.DrainMode;
import io.gshare.workflows.session.SessionRoute.Routing;
import io.gshare.workflows.session.SessionState;
import org.junit.jupiter.api.Test;

class WireEnumTest {

  @Test
  void aConstantIsSpelledAsItsLowerCaseNameAndParsedBack() {
    assertThat(SessionState.PAUSING.wireName()).isEqualTo("pausing");
    assertThat(WireEnum.parse(SessionState.class, "pausing")).contains(SessionState.PAUSING);
    assertThat(SessionState.fromWire("running")).isEqualTo(SessionState.RUNNING);
  }

  @Test
  void anotherSpellingIsTheEnumsOwnAndTheOnlyOneParsed() {
    assertThat(Routing.GATEWAY_API.wireName()).isEqualTo("gateway-api");
    assertThat(WireEnum.parse(Routing.class, "gateway-api")).contains(Routing.GATEWAY_API);
    assertThat(WireEnum.parse(Routing.class, "gateway_api")).isEmpty();
  }

  @Test
  void anUnknownOrNullValueIsEmptyOrARefusalNamingEverySpelling() {
    assertThat(WireEnum.parse(DrainMode.class, null)).isEmpty();
    assertThat(WireEnum.parse(DrainMode.class, "PAUSE")).as("case matters").isEmpty();
    assertThatThrownBy(() -> SessionState.fromWire("asleep")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown session state 'asleep' (pending, creating, running, pausing, paused, resuming, "
            + "terminating, terminated, failed)");
    assertThat(DrainMode.wireNames()).isEqualTo("migrate, pause, terminate");
  }

  @Test
  void aClassKnownOnlyAtRunTimeParsesTheSameAndAnythingElseIsRefused() {
    Class<?> type = Routing.class;
    assertThat(WireEnum.parseAny(type, "gateway-api")).contains(Routing.GATEWAY_API);
    assertThat(WireEnum.parseAny(type, "gateway_api")).isEmpty();
    assertThat(WireEnum.spellings(DrainMode.class)).containsExactly("migrate", "pause", "terminate");
    assertThatThrownBy(() -> WireEnum.spellings(String.class)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("java.lang.String is not an enum implementing WireEnum");
  }
}
