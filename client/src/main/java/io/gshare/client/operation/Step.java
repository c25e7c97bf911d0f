package io.gshare.client.operation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * One step of a long operation, as the API reports it.
 *
 * @param status pending, running, done or failed
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Step(String name, String status, String detail) {

  public static final String DONE = "done";
  public static final String FAILED = "failed";
  public static final String RUNNING = "running";
}
