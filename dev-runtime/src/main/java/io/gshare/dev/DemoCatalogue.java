package io.gshare.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.dev.ApiClient.CallFailed;
import io.gshare.sim.SimSeed;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo data {@code make dev} seeds so that a first session needs no setup, through the api's public
 * REST API with the runtime's super admin token, everything named {@code demo: ...}:
 * <ul>
 *   <li>an offering per GPU model and mode the simulated clusters serve (read from the inventory the
 *       cluster-workers report, and from the simulator's seed): {@code exclusive} sells one whole GPU,
 *       {@code fractional} a HAMi slice of a quarter of the card;</li>
 *   <li>a Jupyter session image;</li>
 *   <li>user {@value #DEMO_EMAIL} (role {@code user}) and an API token for it in {@code <data dir>/demo.token};</li>
 *   <li>{@value #CREDITS} credits for the super admin and for the demo user.</li>
 * </ul>
 * Idempotent: offerings and the image are looked up by name and the user by email before anything is
 * created, a grant carries an idempotency key per user, and a {@code demo.token} that still signs in as
 * the demo user is kept. A second seeding on the same data therefore adds nothing.
 *
 * <p>A call that fails does not stop the dev runtime: it is logged with its status and problem detail,
 * listed in {@link Demo#problems()}, and the banner says what is missing. The demo is a convenience;
 * the runtime itself (api, Temporal, clusters) is still what a developer needs, and a kept data
 * directory whose catalogue was edited by hand should not keep it from starting.
 */
public final class DemoCatalogue {

  /** What names every demo object: offerings, the image, the user's display name, grant descriptions. */
  public static final String PREFIX = "demo: ";
  public static final String DEMO_EMAIL = "demo@example.com";
  public static final String IMAGE_NAME = PREFIX + "Jupyter";
  public static final String IMAGE_REFERENCE = "registry.example.com/jupyter/base-notebook:2026.11";
  public static final BigDecimal CREDITS = new BigDecimal("1000");
  public static final BigDecimal EXCLUSIVE_PRICE_PER_HOUR = new BigDecimal("2");
  public static final BigDecimal FRACTIONAL_PRICE_PER_HOUR = new BigDecimal("0.5");
  public static final int SLICE_CORES_PERCENT = 25;
  static final String TOKEN_FILE = "demo.token";
  static final String TOKEN_NAME = "dev-runtime demo";
  static final String SESSION_NAME = "first-session";

  private static final Logger log = LoggerFactory.getLogger(DemoCatalogue.class);
  private static final Duration INVENTORY_WAIT = Duration.ofSeconds(90);

  /** An offering of the demo catalogue. */
  public record Offering(String id, String name, String gpuModel, String mode) {}

  /**
   * What the seeding made or found.
   *
   * @param offerings one per GPU model and mode, exclusive ones first
   * @param imageId the demo image, null when it could not be made
   * @param demoUserId the demo user, null when it could not be made
   * @param tokenFile {@code <data dir>/demo.token}; holds a token of the demo user when {@link #ready()}
   * @param problems each call that failed, in words (method, path, status, problem detail); empty when all went well
   */
  public record Demo(List<Offering> offerings, String imageId, String adminUserId, String demoUserId, Path tokenFile,
      List<String> problems) {

    public Demo {
      offerings = List.copyOf(offerings);
      problems = List.copyOf(problems);
    }

    /** The offering the banner's first session uses: the first exclusive one (whole GPU), else the first. */
    public Optional<Offering> sessionOffering() {
      return offerings.stream().filter(o -> "exclusive".equals(o.mode())).findFirst()
          .or(() -> offerings.stream().findFirst());
    }

    /** Whether the banner's first session can be started as printed: an offering, the image and the token. */
    public boolean ready() {
      return sessionOffering().isPresent() && imageId != null && demoUserId != null && Files.isRegularFile(tokenFile);
    }

    /** The body of the banner's {@code POST /api/v1/sessions}. */
    public String sessionBody() {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("offering_id", sessionOffering().map(Offering::id).orElse(null));
      body.put("image_id", imageId);
      body.put("name", SESSION_NAME);
      return write(body);
    }
  }


  /** A GPU model sold in one mode, with the smallest card memory seen for it. */
  private record Shape(String model, String mode, long memoryMib) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ApiClient api;
  private final String adminToken;
  private final Path tokenFile;
  private final List<String> problems = new ArrayList<>();

  public DemoCatalogue(String apiUrl, String adminToken, Path dataDir) {
    this.api = new ApiClient(apiUrl, Duration.ofSeconds(60));
    this.adminToken = adminToken;
    this.tokenFile = dataDir.resolve(TOKEN_FILE);
  }

  /**
   * Seeds what is missing and answers what exists. {@code seed} names the GPU models and modes the
   * simulated clusters were started with; the inventory the workers report is awaited for them (the
   * offerings follow what is reported; a model of the seed not reported in time is still offered).
   */
  public Demo seed(SimSeed seed) {
    problems.clear();
    List<Shape> shapes = shapes(seed);
    List<Offering> offerings = offerings(shapes);
    String imageId = image();
    String adminId = attempt(() -> call("GET", "/api/v1/users/me", null, adminToken).path("id").asText(null));
    String demoId = demoUser();
    for (String user : new String[] {adminId, demoId}) {
      if (user != null) {
        grant(user);
      }
    }
    if (demoId != null) {
      token(demoId);
    }
    Demo demo = new Demo(offerings, imageId, adminId, demoId, tokenFile, problems);
    if (problems.isEmpty()) {
      log.info("demo data: {} offering(s), image {}, user {} ({}), {} credits each for it and the super admin; token in {}",
          offerings.size(), imageId, DEMO_EMAIL, demoId, CREDITS.toPlainString(), tokenFile);
    } else {
      log.warn("demo data incomplete ({} call(s) failed; the dev runtime runs on without it): {}", problems.size(),
          String.join("; ", problems));
    }
    return demo;
  }

  /**
   * The models and modes to offer: those of ready GPU nodes in the inventory, once every GPU node of
   * the seed is reported (or the wait is over), plus any of the seed's still missing.
   */
  private List<Shape> shapes(SimSeed seed) {
    Map<String, Shape> expected = new LinkedHashMap<>();
    for (SimSeed.NodeSpec node : seed.nodes()) {
      if (node.hasGpus() && isGpuMode(node.gpuMode())) {
        merge(expected, new Shape(node.gpus().model(), node.gpuMode(), node.gpus().memoryMib()));
      }
    }
    Map<String, Shape> reported = new LinkedHashMap<>();
    Instant deadline = Instant.now().plus(INVENTORY_WAIT);
    String lastFailure = null;
    while (true) {
      reported.clear();
      try {
        for (JsonNode node : call("GET", "/api/v1/nodes", null, adminToken).path("items")) {
          String mode = node.path("gpu_mode").asText();
          if (!"ready".equals(node.path("liveness").asText()) || !isGpuMode(mode)) {
            continue;
          }
          for (JsonNode gpu : node.path("gpus")) {
            merge(reported, new Shape(gpu.path("model").asText(), mode, gpu.path("memory_mib").asLong()));
          }
        }
        lastFailure = null;
      } catch (CallFailed e) {
        lastFailure = e.getMessage();
      }
      if (reported.keySet().containsAll(expected.keySet()) || Instant.now().isAfter(deadline)) {
        break;
      }
      sleep(Duration.ofSeconds(1));
    }
    Map<String, Shape> shapes = new LinkedHashMap<>(reported);
    for (Map.Entry<String, Shape> e : expected.entrySet()) {
      if (!shapes.containsKey(e.getKey())) {
        log.warn("demo data: {} ({}) of the simulator's seed is not in the inventory after {}s{}; offered anyway",
            e.getValue().model(), e.getValue().mode(), INVENTORY_WAIT.toSeconds(),
            lastFailure == null ? "" : " (" + lastFailure + ")");
        shapes.put(e.getKey(), e.getValue());
      }
    }
    // Exclusive first (the banner's first session is a whole GPU), then by model: the same order on every start.
    return shapes.values().stream()
        .sorted(Comparator.comparing((Shape s) -> !"exclusive".equals(s.mode())).thenComparing(Shape::model))
        .toList();
  }

  private static boolean isGpuMode(String mode) {
    return "exclusive".equals(mode) || "fractional".equals(mode);
  }

  private static void merge(Map<String, Shape> shapes, Shape shape) {
    if (shape.model().isBlank() || shape.memoryMib() <= 0) {
      return;
    }
    shapes.merge(shape.model() + "\u0000" + shape.mode(), shape,
        (a, b) -> a.memoryMib() <= b.memoryMib() ? a : b);
  }

  /** One offering per shape, found by name or created. */
  private List<Offering> offerings(List<Shape> shapes) {
    Map<String, String> existing = new LinkedHashMap<>();
    Boolean listed = attempt(() -> {
      for (JsonNode o : call("GET", "/api/v1/offerings", null, adminToken).path("items")) {
        existing.put(o.path("name").asText(), o.path("id").asText());
      }
      return true;
    });
    if (listed == null) {
      return List.of();
    }
    List<Offering> offerings = new ArrayList<>();
    for (Shape shape : shapes) {
      String name = offeringName(shape.model(), shape.mode());
      String id = existing.get(name);
      if (id == null) {
        id = attempt(() -> createOrFind("/api/v1/offerings", offeringBody(name, shape), name));
      }
      if (id != null) {
        offerings.add(new Offering(id, name, shape.model(), shape.mode()));
      }
    }
    return offerings;
  }

  /** {@code demo: <model>, 1 whole GPU} or {@code demo: <model>, 1/4 GPU slice}, at most 100 characters. */
  static String offeringName(String model, String mode) {
    String shape = "exclusive".equals(mode) ? ", 1 whole GPU" : ", 1/4 GPU slice";
    int room = 100 - PREFIX.length() - shape.length();
    return PREFIX + (model.length() > room ? model.substring(0, room) : model) + shape;
  }

  /** Exclusive: one whole GPU. Fractional: a quarter of the card's memory (whole GiB when it has 4 GiB or more) and cores. */
  private static Map<String, Object> offeringBody(String name, Shape shape) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    body.put("gpu_model", shape.model());
    body.put("mode", shape.mode());
    if ("exclusive".equals(shape.mode())) {
      body.put("gpu_count", 1);
      body.put("price_per_hour", EXCLUSIVE_PRICE_PER_HOUR);
    } else {
      long quarter = shape.memoryMib() / 4;
      body.put("gpumem_mib", Math.max(1, quarter >= 1024 ? quarter / 1024 * 1024 : quarter));
      body.put("gpucores_percent", SLICE_CORES_PERCENT);
      body.put("price_per_hour", FRACTIONAL_PRICE_PER_HOUR);
    }
    body.put("active", true);
    return body;
  }

  private String image() {
    return attempt(() -> {
      for (JsonNode i : call("GET", "/api/v1/images", null, adminToken).path("items")) {
        if (IMAGE_NAME.equals(i.path("name").asText())) {
          return i.path("id").asText();
        }
      }
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", IMAGE_NAME);
      body.put("reference", IMAGE_REFERENCE);
      body.put("port", 8888);
      body.put("path", "/");
      body.put("description", "demo data seeded by the dev runtime (make dev; --no-demo leaves it out): JupyterLab");
      body.put("active", true);
      return createOrFind("/api/v1/images", body, IMAGE_NAME);
    });
  }

  private String demoUser() {
    return attempt(() -> {
      String found = findUser();
      if (found != null) {
        return found;
      }
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("email", DEMO_EMAIL);
      body.put("display_name", PREFIX + "Demo user");
      body.put("role", "user");
      try {
        return call("POST", "/api/v1/users", body, adminToken).path("id").asText();
      } catch (CallFailed e) {
        // Created meanwhile (409): the one that exists is the demo user.
        found = findUser();
        if (found == null) {
          throw e;
        }
        return found;
      }
    });
  }

  private String findUser() throws CallFailed {
    for (JsonNode u : call("GET", "/api/v1/users", null, adminToken).path("items")) {
      if (DEMO_EMAIL.equalsIgnoreCase(u.path("email").asText())) {
        return u.path("id").asText();
      }
    }
    return null;
  }

  /** One grant per user ever: the key names the user, so a second seeding books nothing (200, created false). */
  private void grant(String userId) {
    attempt(() -> {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("user_id", userId);
      body.put("amount", CREDITS);
      body.put("description", PREFIX + "credits seeded by the dev runtime");
      body.put("idempotency_key", grantKey(userId));
      return call("POST", "/api/v1/credits/grants", body, adminToken);
    });
  }

  static String grantKey(String userId) {
    return "dev-runtime-demo-credits:" + userId;
  }

  /** Keeps a {@code demo.token} that still signs in as the demo user; else issues one and writes it (owner-only). */
  private void token(String demoId) {
    attempt(() -> {
      if (Files.isRegularFile(tokenFile)) {
        String kept = Files.readString(tokenFile).trim();
        try {
          if (!kept.isEmpty() && demoId.equals(call("GET", "/api/v1/users/me", null, kept).path("id").asText())) {
            return kept;
          }
        } catch (CallFailed e) {
          log.info("demo data: {} no longer signs in ({}); issuing a new token", tokenFile, e.getMessage());
        }
      }
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", TOKEN_NAME);
      body.put("ttl_days", 30);
      String token = call("POST", "/api/v1/users/" + demoId + "/tokens", body, adminToken).path("token").asText();
      writeSecret(tokenFile, token);
      return token;
    });
  }

  private static void writeSecret(Path file, String value) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tmp);
    }
    Files.writeString(tmp, value + "\n");
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** POSTs {@code body}; on 409 (created meanwhile under that name) answers the existing one's id. */
  private String createOrFind(String path, Map<String, Object> body, String name) throws CallFailed {
    try {
      return call("POST", path, body, adminToken).path("id").asText();
    } catch (CallFailed e) {
      for (JsonNode item : call("GET", path, null, adminToken).path("items")) {
        if (name.equals(item.path("name").asText())) {
          return item.path("id").asText();
        }
      }
      throw e;
    }
  }

  private interface Step<T> {
    /** A {@link CallFailed} (an IOException) names the call; another IOException is the token file's. */
    T run() throws IOException;
  }

  /** Runs a step; a failure is logged and listed, and the step answers null. */
  private <T> T attempt(Step<T> step) {
    try {
      return step.run();
    } catch (IOException e) {
      String problem = e instanceof CallFailed ? e.getMessage() : tokenFile + ": " + e;
      log.warn("demo data: {}", problem);
      problems.add(problem);
      return null;
    }
  }

  /** One call; a non-2xx answer fails with the method, path, status and the problem's code and detail. */
  private JsonNode call(String method, String path, Map<String, Object> body, String token) throws CallFailed {
    return api.call(method, path, token, body == null ? null : write(body));
  }

  static String write(Object body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
