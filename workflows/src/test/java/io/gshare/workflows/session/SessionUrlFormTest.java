package io.gshare.workflows.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SessionUrlFormTest {

  @Test
  void noFormIsProductionsHttpsOnTheDefaultPort() {
    assertThat(SessionUrlForm.urlOf(null, "gshare.lab.example.com", "ses_1")).isEqualTo("https://gshare.lab.example.com/s/ses_1/");
    assertThat(SessionUrlForm.urlOf(SessionUrlForm.HTTPS, "gshare.lab.example.com", "ses_1"))
        .isEqualTo("https://gshare.lab.example.com/s/ses_1/");
  }

  @Test
  void aPortIsWrittenOnlyWhenItIsNotTheSchemesDefault() {
    assertThat(SessionUrlForm.urlOf(new SessionUrlForm("http", 8081), "gshare.sim.localhost", "ses_1"))
        .isEqualTo("http://gshare.sim.localhost:8081/s/ses_1/");
    assertThat(SessionUrlForm.originOf(new SessionUrlForm("https", 443), "a.example.com")).isEqualTo("https://a.example.com");
    assertThat(SessionUrlForm.originOf(new SessionUrlForm("http", 80), "a.example.com")).isEqualTo("http://a.example.com");
    assertThat(SessionUrlForm.originOf(new SessionUrlForm("HTTPS", 8443), "a.example.com")).isEqualTo("https://a.example.com:8443");
  }

  @Test
  void anotherSchemeOrABadPortIsRefused() {
    assertThatThrownBy(() -> new SessionUrlForm("ftp", 0)).hasMessageContaining("https or http, not ftp");
    assertThatThrownBy(() -> new SessionUrlForm("http", 70000)).hasMessageContaining("not 70000");
  }
}
