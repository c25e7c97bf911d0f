package io.gshare.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;

/** An answer of the API as it came: status, headers and body, for tests of the HTTP contract and for errors. */
public record ApiResponse(String method, String path, int status, HttpHeaders headers, byte[] body) {

  public String contentType() {
    return headers.firstValue("Content-Type").orElse("");
  }

  public boolean isJson() {
    return contentType().contains("json");
  }

  public String text() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** The body as JSON; a missing node when it is empty or not JSON (a test then sees what it asked for is absent). */
  public JsonNode json() {
    if (body.length == 0) {
      return ApiJson.MAPPER.missingNode();
    }
    try {
      return ApiJson.MAPPER.readTree(body);
    } catch (IOException e) {
      return ApiJson.MAPPER.missingNode();
    }
  }

  /** The RFC 9457 problem this error answer carries, or one describing an answer without a problem document. */
  public ApiProblemException.ApiProblem problem() {
    if (isJson() && body.length > 0) {
      try {
        return ApiJson.MAPPER.readValue(body, ApiProblemException.ApiProblem.class);
      } catch (IOException e) {
        // falls through to the description below
      }
    }
    return new ApiProblemException.ApiProblem(null, "HTTP " + status, status,
        method + " " + path + " answered " + status + " without a problem document", null, null, null);
  }
}
