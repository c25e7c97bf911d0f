package io.gshare.api.operation;

import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.WireEnum;
import io.temporal.common.SearchAttributeKey;
import java.util.Optional;

/**
 * The kinds of object an operation can be found by ({@code ?object_kind=}), each with the search
 * attribute its workflows carry.
 */
public enum OperationObject implements WireEnum {
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

  public static Optional<OperationObject> fromWire(String value) {
    return WireEnum.parse(OperationObject.class, value);
  }

  public static String wireNames() {
    return WireEnum.wireNames(OperationObject.class);
  }
}
