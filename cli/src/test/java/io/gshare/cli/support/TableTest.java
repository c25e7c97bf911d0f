package io.gshare.cli.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TableTest {

  private final Table table = Table.of("ID", "NAME", "URL")
      .row("ses_1", "train", "https://gshare.lab.example.com/s/ses_1/")
      .row("ses_22", null, "https://gshare.lab.example.com/s/ses_22/");

  @Test
  void columnsAreAsWideAsTheirWidestCellAndEmptyCellsShowADash() {
    assertThat(table.render(0, true)).isEqualTo("""
        ID       NAME    URL
        ses_1    train   https://gshare.lab.example.com/s/ses_1/
        ses_22   -       https://gshare.lab.example.com/s/ses_22/
        """);
  }

  @Test
  void aNarrowTerminalCutsTheWidestColumnFirstWithAnEllipsis() {
    String rendered = table.render(40, true);
    rendered.lines().forEach(line -> assertThat(line.length()).isLessThanOrEqualTo(40));
    assertThat(rendered).contains("ses_22").contains("…");
  }

  @Test
  void withoutHeadersScriptsGetRowsOnly() {
    assertThat(table.render(0, false)).startsWith("ses_1 ").doesNotContain("NAME");
  }

  @Test
  void aRowMustFillEveryColumn() {
    assertThatThrownBy(() -> Table.of("A", "B").row("only one")).isInstanceOf(IllegalArgumentException.class);
  }
}
