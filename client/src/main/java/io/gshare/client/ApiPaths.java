package io.gshare.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/** Every path of the public API, spelled once; ids are encoded as path segments. */
public final class ApiPaths {

  public static final String BASE = "/api/v1";
  public static final String SESSIONS = BASE + "/sessions";
  public static final String OPERATIONS = BASE + "/operations";
  public static final String CLUSTERS = BASE + "/clusters";
  public static final String NODES = BASE + "/nodes";
  public static final String GPUS = BASE + "/gpus";
  public static final String VOLUMES = BASE + "/volumes";
  public static final String VOLUME_EXPANSIONS = BASE + "/volume-expansions";
  public static final String STORAGE_POOLS = BASE + "/storage/pools";
  public static final String USERS = BASE + "/users";
  public static final String ME = USERS + "/me";
  public static final String TEAMS = BASE + "/teams";
  public static final String CREDITS = BASE + "/credits";
  public static final String CREDIT_GRANTS = CREDITS + "/grants";
  public static final String OFFERINGS = BASE + "/offerings";
  public static final String IMAGES = BASE + "/images";
  public static final String NODE_POOLS = BASE + "/node-pools";
  public static final String DEFAULT_POLICY = BASE + "/policies/default";
  public static final String SYSTEM = BASE + "/system";
  public static final String ALERTS = BASE + "/alerts";
  public static final String AUDIT = BASE + "/audit";
  public static final String AVAILABILITY = BASE + "/availability";

  private ApiPaths() {}

  public static String session(String id) {
    return SESSIONS + "/" + segment(id);
  }

  public static String operation(String id) {
    return OPERATIONS + "/" + segment(id);
  }

  public static String cluster(String id) {
    return CLUSTERS + "/" + segment(id);
  }

  public static String node(String id) {
    return NODES + "/" + segment(id);
  }

  public static String gpu(String uuid) {
    return GPUS + "/" + segment(uuid);
  }

  public static String volume(String id) {
    return VOLUMES + "/" + segment(id);
  }

  public static String storagePool(String id) {
    return STORAGE_POOLS + "/" + segment(id);
  }

  public static String user(String id) {
    return USERS + "/" + segment(id);
  }

  public static String userTokens(String userId) {
    return user(userId) + "/tokens";
  }

  public static String offering(String id) {
    return OFFERINGS + "/" + segment(id);
  }

  public static String image(String id) {
    return IMAGES + "/" + segment(id);
  }

  public static String nodePool(String id) {
    return NODE_POOLS + "/" + segment(id);
  }

  public static String teamPolicy(String teamId) {
    return TEAMS + "/" + segment(teamId) + "/policy";
  }

  /** {@code path?name=value&...} for the values that are present, each encoded. */
  public static String query(String path, Object... namesAndValues) {
    Map<String, Object> params = new LinkedHashMap<>();
    for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
      if (namesAndValues[i + 1] != null) {
        params.put(String.valueOf(namesAndValues[i]), namesAndValues[i + 1]);
      }
    }
    if (params.isEmpty()) {
      return path;
    }
    StringJoiner query = new StringJoiner("&", path + "?", "");
    params.forEach((k, v) -> query.add(encode(k) + "=" + encode(String.valueOf(v))));
    return query.toString();
  }

  /** One path segment, encoded (ids may come from a command line). */
  public static String segment(String value) {
    return encode(value).replace("+", "%20");
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
