package io.gshare.cli.login;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.sun.net.httpserver.HttpServer;
import io.gshare.cli.CliCommand;
import io.gshare.cli.CliEnv;
import io.gshare.cli.support.CliException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The browser sign-in of a native app (RFC 8252): a listener on 127.0.0.1 at a free port, the console's
 * {@code /auth/cli} page opened with that port, a random state and a PKCE challenge (RFC 7636, S256); the browser
 * signs in with the organisation's provider and comes back with a one-time code, which only this process can redeem
 * (it alone knows the verifier) for an API token.
 */
final class LoopbackSignIn {

  private static final SecureRandom RANDOM = new SecureRandom();

  /** The token exchange's body. */
  record TokenRequest(String code, String codeVerifier, String client) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  record CliToken(String token, String tokenId, Instant expiresAt, String userId, String email) {}

  private LoopbackSignIn() {}

  static CliToken run(CliEnv env, URI server, Duration timeout) {
    String verifier = random(48);
    String state = random(24);
    CompletableFuture<Map<String, String>> callback = new CompletableFuture<>();
    HttpServer listener;
    try {
      listener = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new CliException("cannot listen on 127.0.0.1 for the browser's answer: " + e.getMessage(), e);
    }
    listener.createContext("/callback", exchange -> {
      Map<String, String> query = parse(exchange.getRequestURI().getRawQuery());
      boolean ok = state.equals(query.get("state")) && query.get("code") != null;
      byte[] page = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gshare login</title></head>"
          + "<body><main><h1>" + (ok ? "Signed in" : "Sign-in not accepted") + "</h1><p>"
          + (ok ? "You can close this tab and go back to the terminal." : "This answer is not for the gshare login"
          + " running now; run gshare login again.") + "</p></main></body></html>").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      exchange.sendResponseHeaders(ok ? 200 : 400, page.length);
      exchange.getResponseBody().write(page);
      exchange.close();
      if (ok) {
        callback.complete(query);
      }
    });
    listener.start();
    try {
      int port = listener.getAddress().getPort();
      URI page = URI.create(server + "/auth/cli?port=" + port + "&state=" + state + "&code_challenge="
          + challenge(verifier));
      PrintWriter err = env.terminal().err();
      boolean opened = env.browser().open(page);
      err.println(opened ? "Your browser is open at the sign-in page; finish there (waiting up to "
          + timeout.toMinutes() + " min)." : "Open this URL in a browser on this machine to sign in (waiting up to "
          + timeout.toMinutes() + " min):");
      err.println("  " + page);
      err.flush();
      Map<String, String> answer = callback.get(timeout.toSeconds(), TimeUnit.SECONDS);
      return CliCommand.client(server, null).post("/auth/cli/token",
          new TokenRequest(answer.get("code"), verifier, hostname()), CliToken.class);
    } catch (TimeoutException e) {
      throw new CliException("no sign-in arrived within " + timeout.toMinutes() + " min; run gshare login again", e);
    } catch (ExecutionException e) {
      throw new CliException("the sign-in failed: " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted", e);
    } finally {
      listener.stop(0);
    }
  }

  static String challenge(String verifier) {
    try {
      return Base64.getUrlEncoder().withoutPadding().encodeToString(
          MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static String random(int bytes) {
    byte[] value = new byte[bytes];
    RANDOM.nextBytes(value);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(value);
  }

  private static Map<String, String> parse(String query) {
    Map<String, String> values = new HashMap<>();
    if (query != null) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          values.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return values;
  }

  private static String hostname() {
    try {
      String name = InetAddress.getLocalHost().getHostName();
      return name.length() > 50 ? name.substring(0, 50) : name;
    } catch (IOException e) {
      return null;
    }
  }
}
