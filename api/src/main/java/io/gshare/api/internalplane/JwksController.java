package io.gshare.api.internalplane;

import io.gshare.api.security.OpenPaths;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The public keys that verify operator tokens, for anyone who needs to check one. */
@RestController
@Tag(name = "internal")
class JwksController {

  private final Tokens tokens;

  JwksController(Tokens tokens) {
    this.tokens = tokens;
  }

  @GetMapping(value = OpenPaths.INTERNAL_JWKS, produces = MediaType.APPLICATION_JSON_VALUE)
  @Operation(summary = "JWKS of the internal (operator) token keys: the current key and any rotated-out key still in its overlap")
  ResponseEntity<Map<String, Object>> jwks() {
    // "alg" first, as the operator guide's check (`head -c 40` → {"keys":[{"alg":"RS256"...) expects.
    List<Map<String, Object>> keys = tokens.publicKeys(TokenKind.INTERNAL).getKeys().stream().map(key -> {
      Map<String, Object> ordered = new LinkedHashMap<>();
      Map<String, Object> json = key.toJSONObject();
      for (String first : List.of("alg", "kty", "use", "kid")) {
        if (json.containsKey(first)) {
          ordered.put(first, json.get(first));
        }
      }
      ordered.putAll(json);
      return ordered;
    }).toList();
    return ResponseEntity.ok()
        .cacheControl(CacheControl.maxAge(5, TimeUnit.MINUTES))
        .body(Map.of("keys", keys));
  }
}
