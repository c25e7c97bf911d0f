package io.gshare.workflows.common;

import io.temporal.common.SearchAttributeKey;
import java.util.List;

/**
 * Search attributes registered at start, so an operator finds every operation on an object in the
 * Temporal UI ({@code GshareClusterId = "clu_…"}).
 */
public final class SearchAttributes {

  public static final SearchAttributeKey<String> CLUSTER_ID = SearchAttributeKey.forKeyword("GshareClusterId");
  public static final SearchAttributeKey<String> SESSION_ID = SearchAttributeKey.forKeyword("GshareSessionId");
  public static final SearchAttributeKey<String> USER_ID = SearchAttributeKey.forKeyword("GshareUserId");
  public static final SearchAttributeKey<String> NODE_ID = SearchAttributeKey.forKeyword("GshareNodeId");
  public static final SearchAttributeKey<String> VOLUME_ID = SearchAttributeKey.forKeyword("GshareVolumeId");

  /** Every key gShare sets; all are keywords. */
  public static final List<SearchAttributeKey<String>> ALL = List.of(CLUSTER_ID, SESSION_ID, USER_ID, NODE_ID, VOLUME_ID);

  private SearchAttributes() {}
}
