package io.gshare.client.user;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** {@code GET /api/v1/users/me}: who a token signs in. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Me(String id, String email, String displayName, String role, String teamId) {}
