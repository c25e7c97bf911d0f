package io.gshare.clusterworker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gshare.contract.internal.InternalPaths;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls the control plane's {@code /internal} endpoints with the operator token. */
final class ControlPlaneClient {

  /** A call the control plane refused; {@code status} says how (401 token, 403 scope, ...). */
  static final class Refused extends IOException {
    final int status;

    Refused(int status, String body) {
      super("the control plane answered " + status + ": " + body);
      this.status = status;
    }
  }

  private final URI baseUrl;
  private final TokenFile token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  /**
   * The records of {@code io.gshare.contract.internal} name their own JSON: no naming strategy here. Instants
   * go as ISO-8601 text, as the api writes them.
   */
  static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
  private final ObjectMapper json = JSON;

  ControlPlaneClient(URI baseUrl, TokenFile token) {
    this.baseUrl = baseUrl;
    this.token = token;
  }

  /** POSTs a report to {@code path}, one of {@link InternalPaths}, under {@link InternalPaths#BASE}. */
  void post(String path, Object body) throws IOException, InterruptedException {
    send(path, body);
  }

  /** POSTs {@code body} to {@code path} and reads the answer as {@code answer}. */
  <T> T exchange(String path, Object body, Class<T> answer) throws IOException, InterruptedException {
    return json.readValue(send(path, body), answer);
  }

  private String send(String path, Object body) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(baseUrl.resolve(InternalPaths.BASE + path))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + token.token())
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)))
        .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new Refused(response.statusCode(), response.body());
    }
    return response.body();
  }
}
