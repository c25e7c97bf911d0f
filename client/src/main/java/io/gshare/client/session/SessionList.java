package io.gshare.client.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** A page of sessions, newest first; {@code next} is the cursor of the next page (null on the last). */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SessionList(List<Session> items, String next) {
  public SessionList {
    items = items == null ? List.of() : List.copyOf(items);
  }
}
