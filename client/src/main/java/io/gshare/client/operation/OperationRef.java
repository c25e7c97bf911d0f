package io.gshare.client.operation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The operation an accepted request started (attach, drain, ...): follow it at {@code href}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record OperationRef(String id, String href) {}
