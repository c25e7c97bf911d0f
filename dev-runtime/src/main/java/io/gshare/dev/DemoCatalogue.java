package io.gshare.dev;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.gshare.client.ApiCallException;
import io.gshare.client.ApiJson;
import io.gshare.client.ApiPaths;
import io.gshare.client.ApiProblemException;
import io.gshare.client.GshareClient;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.credit.Credits;
import io.gshare.client.node.Node;
import io.gshare.client.session.NewSession;
import io.gshare.client.user.Users;
import io.gshare.sim.SimSeed;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
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
import java.util.function.Supplier;
import java.util.stream.Collectors;
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
   * @param problems each call that failed, in words (what it did, status, problem code and detail); empty when all went well
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

    /** The body of the banner's {@code POST /api/v1/sessions}, as the API's JSON. */
    public String sessionBody() {
      try {
        return ApiJson.MAPPER.writeValueAsString(
            new NewSession(sessionOffering().map(Offering::id).orElse(null), imageId, null, SESSION_NAME, null));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
  }


  /** A GPU model sold in one mode, with the smallest card memory seen for it. */
  private record Shape(String model, String mode, long memoryMib) {}

  private final GshareClient api;
  private final Path tokenFile;
  private final List<String> problems = new ArrayList<>();

  public DemoCatalogue(String apiUrl, String adminToken, Path dataDir) {
    this(new GshareClient(URI.create(apiUrl), adminToken).userAgent("gshare-dev-runtime"), dataDir);
  }

  /** Seeds through {@code admin}, a client calling as a super admin. */
  public DemoCatalogue(GshareClient admin, Path dataDir) {
    this.api = admin.timeout(Duration.ofSeconds(60));
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
    String adminId = attempt("reading the super admin (GET " + ApiPaths.ME + ")", () -> api.users().me().id());
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
        for (Node node : api.nodes().list().items()) {
          String mode = node.gpuMode();
          if (!"ready".equals(node.liveness()) || !isGpuMode(mode)) {
            continue;
          }
          for (Node.Gpu gpu : node.gpus()) {
            merge(reported, new Shape(gpu.model() == null ? "" : gpu.model(), mode,
                gpu.memoryMib() == null ? 0 : gpu.memoryMib()));
          }
        }
        lastFailure = null;
      } catch (ApiProblemException e) {
        lastFailure = "GET " + ApiPaths.NODES + " " + refusal(e);
      } catch (ApiCallException e) {
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
    Boolean listed = attempt("listing offerings (GET " + ApiPaths.OFFERINGS + ")", () -> {
      for (Catalogue.Offering o : api.catalogue().offerings().items()) {
        existing.put(o.name(), o.id());
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
        id = attempt("creating offering \"" + name + "\" (POST " + ApiPaths.OFFERINGS + ")", () -> createOrFind(
            () -> api.catalogue().createOffering(offeringBody(name, shape)).id(),
            () -> api.catalogue().offerings().items().stream().filter(o -> name.equals(o.name()))
                .map(Catalogue.Offering::id).findFirst().orElse(null)));
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
  private static Catalogue.NewOffering offeringBody(String name, Shape shape) {
    if ("exclusive".equals(shape.mode())) {
      return new Catalogue.NewOffering(name, shape.model(), shape.mode(), 1, null, null, EXCLUSIVE_PRICE_PER_HOUR,
          true);
    }
    long quarter = shape.memoryMib() / 4;
    int sliceMib = Math.toIntExact(Math.max(1, quarter >= 1024 ? quarter / 1024 * 1024 : quarter));
    return new Catalogue.NewOffering(name, shape.model(), shape.mode(), null, sliceMib, SLICE_CORES_PERCENT,
        FRACTIONAL_PRICE_PER_HOUR, true);
  }

  private String image() {
    return attempt("creating image \"" + IMAGE_NAME + "\" (" + ApiPaths.IMAGES + ")", () -> {
      String found = findImage();
      if (found != null) {
        return found;
      }
      Catalogue.NewImage image = new Catalogue.NewImage(IMAGE_NAME, IMAGE_REFERENCE, 8888, "/",
          "demo data seeded by the dev runtime (make dev; --no-demo leaves it out): JupyterLab", true);
      return createOrFind(() -> api.catalogue().createImage(image).id(), this::findImage);
    });
  }

  private String findImage() {
    return api.catalogue().images().items().stream().filter(i -> IMAGE_NAME.equals(i.name()))
        .map(Catalogue.Image::id).findFirst().orElse(null);
  }

  private String demoUser() {
    return attempt("creating user " + DEMO_EMAIL + " (" + ApiPaths.USERS + ")", () -> createOrFind(() -> {
      String found = findUser();
      return found != null ? found
          : api.users().create(new Users.NewUser(DEMO_EMAIL, PREFIX + "Demo user", "user", null)).id();
    }, this::findUser));
  }

  private String findUser() {
    return api.users().list().items().stream().filter(u -> DEMO_EMAIL.equalsIgnoreCase(u.email()))
        .map(Users.User::id).findFirst().orElse(null);
  }

  /** One grant per user ever: the key names the user, so a second seeding books nothing (200, created false). */
  private void grant(String userId) {
    attempt("granting credits to " + userId + " (POST " + ApiPaths.CREDIT_GRANTS + ")", () -> api.credits().grant(
        new Credits.Grant(userId, CREDITS, PREFIX + "credits seeded by the dev runtime", grantKey(userId))));
  }

  static String grantKey(String userId) {
    return "dev-runtime-demo-credits:" + userId;
  }

  /** Keeps a {@code demo.token} that still signs in as the demo user; else issues one and writes it (owner-only). */
  private void token(String demoId) {
    attempt("issuing the demo user's token (POST " + ApiPaths.userTokens(demoId) + ")", () -> {
      if (Files.isRegularFile(tokenFile)) {
        String kept = Files.readString(tokenFile).trim();
        try {
          if (!kept.isEmpty() && demoId.equals(api.as(kept).users().me().id())) {
            return kept;
          }
        } catch (ApiProblemException e) {
          log.info("demo data: {} no longer signs in (GET {} {}); issuing a new token", tokenFile, ApiPaths.ME,
              refusal(e));
        } catch (ApiCallException e) {
          log.info("demo data: {} no longer signs in ({}); issuing a new token", tokenFile, e.getMessage());
        }
      }
      String token = api.users().issueToken(demoId, new Users.NewToken(TOKEN_NAME, 30)).token();
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

  /**
   * Creates; when the API refuses (409: created meanwhile under that name), answers the one {@code find} finds,
   * else rethrows the refusal.
   */
  private static String createOrFind(Supplier<String> create, Supplier<String> find) {
    try {
      return create.get();
    } catch (ApiProblemException e) {
      String found = find.get();
      if (found == null) {
        throw e;
      }
      return found;
    }
  }

  private interface Step<T> {
    /** An {@link ApiProblemException} or {@link ApiCallException} is the API's; an IOException the token file's. */
    T run() throws IOException;
  }

  /** Runs a step; a failure is logged and listed, and the step answers null. */
  private <T> T attempt(String what, Step<T> step) {
    try {
      return step.run();
    } catch (ApiProblemException e) {
      return failed(what + " " + refusal(e));
    } catch (ApiCallException e) {
      return failed(what + ": " + e.getMessage());
    } catch (IOException e) {
      return failed(tokenFile + ": " + e);
    }
  }

  private <T> T failed(String problem) {
    log.warn("demo data: {}", problem);
    problems.add(problem);
    return null;
  }

  /**
   * A refusal in words, from its RFC 9457 problem: {@code answered 409 conflict: an offering named x already exists},
   * then each field's complaint of a validation failure ({@code [gpu_count: must be at least 1]}).
   */
  static String refusal(ApiProblemException e) {
    ApiProblemException.ApiProblem problem = e.problem();
    StringBuilder text = new StringBuilder("answered ").append(problem.status());
    if (problem.code() != null) {
      text.append(' ').append(problem.code());
    }
    String detail = problem.detail() == null || problem.detail().isBlank() ? problem.title() : problem.detail();
    if (detail != null && !detail.isBlank()) {
      text.append(": ").append(detail);
    }
    if (!problem.errors().isEmpty()) {
      text.append(problem.errors().stream().map(f -> f.field() + ": " + f.message())
          .collect(Collectors.joining("; ", " [", "]")));
    }
    return text.toString();
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
