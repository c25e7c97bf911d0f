package io.gshare.api.operation;

import io.gshare.workflows.common.SearchAttributes;
import io.temporal.common.SearchAttributeKey;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The kinds of object an operation can be found by ({@code ?object_kind=}), each with the search
 * attribute its workflows carry.
 */
public enum OperationObject {
  CLUSTER(SearchAttributes.CLUSTER_ID),
  SESSION(SearchAttributes.SESSION_ID),
  USER(SearchAttributes.USER_ID),
  NODE(SearchAttributes.NODE_ID),
  VOLUME(SearchAttributes.VOLUME_ID);

  private final SearchAttributeKey<String> searchAttribute;

  OperationObject(SearchAttributeKey<String> searchAttribute) {
    this.searchAttribute = searchAttribute;
  }

  public SearchAttributeKey<String> searchAttribute() {
    return searchAttribute;
  }

  /** The name on the wire: {@code cluster}, {@code session}, ... */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<OperationObject> fromWire(String value) {
    return Arrays.stream(values()).filter(k -> k.wireName().equals(value)).findFirst();
  }

  public static String wireNames() {
    return Arrays.stream(values()).map(OperationObject::wireName).collect(Collectors.joining(", "));
  }
}
