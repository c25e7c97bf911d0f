package io.gshare.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pod list's field selector on {@code spec.nodeName} ({@code kubectl drain}, a node's pods), which the
 * fabric8 mock cannot answer: it matches field selectors against what it indexes (name, namespace), so
 * {@code spec.nodeName=x} matches no pod. The requirement is taken off the query the mock sees and
 * applied to the items it answers ({@code =}, {@code ==}, {@code !=}; an empty value is a pod bound
 * nowhere). Lists only: a watch with such a selector is left to the mock.
 */
final class NodeNameFieldSelector {

  private static final Pattern POD_LIST = Pattern.compile("/api/v1(/namespaces/[^/]+)?/pods/?");
  private static final Pattern REQUIREMENT = Pattern.compile("spec\\.nodeName(==|=|!=)(.*)");

  private record Requirement(boolean equal, String value) {
    boolean matches(String nodeName) {
      return equal == value.equals(nodeName);
    }
  }

  private final String forwardPath;
  private final List<Requirement> requirements;
  private final ObjectMapper json = new ObjectMapper();

  private NodeNameFieldSelector(String forwardPath, List<Requirement> requirements) {
    this.forwardPath = forwardPath;
    this.requirements = requirements;
  }

  /** The selector of a pod list {@code GET} that filters on {@code spec.nodeName}, or null. */
  static NodeNameFieldSelector of(RecordedRequest request) {
    String path = request.getPath();
    int q = path.indexOf('?');
    if (request.method() != HttpMethod.GET || q < 0 || !POD_LIST.matcher(path.substring(0, q)).matches()) {
      return null;
    }
    List<String> kept = new ArrayList<>();
    List<Requirement> requirements = new ArrayList<>();
    for (String param : path.substring(q + 1).split("&")) {
      int eq = param.indexOf('=');
      String name = eq < 0 ? param : param.substring(0, eq);
      String value = eq < 0 ? "" : URLDecoder.decode(param.substring(eq + 1), StandardCharsets.UTF_8);
      if (name.equals("watch") && (value.equals("true") || value.equals("1"))) {
        return null;
      }
      if (!name.equals("fieldSelector")) {
        kept.add(param);
        continue;
      }
      List<String> others = new ArrayList<>();
      for (String term : value.split(",")) {
        Matcher m = REQUIREMENT.matcher(term.trim());
        if (m.matches()) {
          requirements.add(new Requirement(!m.group(1).equals("!="), m.group(2)));
        } else if (!term.isBlank()) {
          others.add(term);
        }
      }
      if (!others.isEmpty()) {
        kept.add("fieldSelector=" + URLEncoder.encode(String.join(",", others), StandardCharsets.UTF_8));
      }
    }
    if (requirements.isEmpty()) {
      return null;
    }
    String forward = path.substring(0, q) + (kept.isEmpty() ? "" : "?" + String.join("&", kept));
    return new NodeNameFieldSelector(forward, requirements);
  }

  /** The request the mock sees: the same list without the {@code spec.nodeName} requirements. */
  RecordedRequest forward(RecordedRequest request) {
    return new RecordedRequest(request.getHttpVersion(), request.method(), forwardPath, request.getHeaders(), new Buffer());
  }

  /** The mock's answer with only the pods every requirement matches. */
  MockResponse filter(MockResponse answer) throws Exception {
    if (answer.code() != 200 || answer.getBody() == null) {
      return answer;
    }
    JsonNode list = json.readTree(new String(answer.getBody().getBytes(), StandardCharsets.UTF_8));
    if (!(list instanceof ObjectNode object) || !list.path("items").isArray()) {
      return answer;
    }
    ArrayNode kept = json.createArrayNode();
    for (JsonNode pod : list.path("items")) {
      String nodeName = pod.path("spec").path("nodeName").asText("");
      if (requirements.stream().allMatch(r -> r.matches(nodeName))) {
        kept.add(pod);
      }
    }
    object.set("items", kept);
    return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json")
        .setBody(json.writeValueAsString(object));
  }
}
