package io.gshare.cli.catalogue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.cli.support.CliException;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocumentTest {

  @TempDir Path dir;

  @Test
  void setPairsAreTypedAsJsonWhereTheyReadAsJson() {
    var body = Document.of(null, List.of("name=H100 whole", "price_per_hour=4.5", "active=false", "gpu_count=2",
        "node_ids=[\"nod_1\",\"nod_2\"]", "note=null"), new ByteArrayInputStream(new byte[0]));
    assertThat(body.get("name").isTextual()).isTrue();
    assertThat(body.get("price_per_hour").decimalValue()).isEqualByComparingTo("4.5");
    assertThat(body.get("active").isBoolean()).isTrue();
    assertThat(body.get("gpu_count").intValue()).isEqualTo(2);
    assertThat(body.get("node_ids").size()).isEqualTo(2);
    assertThat(body.get("note").isNull()).isTrue();
  }

  @Test
  void aYamlFileIsTheBodyAndSetPairsGoOnTop() throws Exception {
    Path file = dir.resolve("offering.yaml");
    Files.writeString(file, "name: A100 slice\nmode: fractional\nprice_per_hour: 0.5\n");
    var body = Document.of(file, List.of("price_per_hour=0.75"), new ByteArrayInputStream(new byte[0]));
    assertThat(body.get("mode").asText()).isEqualTo("fractional");
    assertThat(body.get("price_per_hour").decimalValue()).isEqualByComparingTo("0.75");
  }

  @Test
  void standardInputServesForDash() {
    var body = Document.of(Path.of("-"), List.of(), new ByteArrayInputStream("{\"name\": \"x\"}".getBytes()));
    assertThat(body.get("name").asText()).isEqualTo("x");
  }

  @Test
  void badInputIsSaidInWords() throws Exception {
    assertThatThrownBy(() -> Document.of(null, List.of("no-equals"), new ByteArrayInputStream(new byte[0])))
        .isInstanceOf(CliException.class).hasMessageContaining("name=value");
    Path list = dir.resolve("list.yaml");
    Files.writeString(list, "- a\n- b\n");
    assertThatThrownBy(() -> Document.of(list, List.of(), new ByteArrayInputStream(new byte[0])))
        .isInstanceOf(CliException.class).hasMessageContaining("one object");
  }
}
