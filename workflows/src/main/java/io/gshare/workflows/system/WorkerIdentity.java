package io.gshare.workflows.system;

/**
 * @param identity the Temporal worker identity ({@code pid@host})
 * @param role {@code control} or {@code cluster-worker}
 * @param version the gShare version the worker runs
 */
public record WorkerIdentity(String identity, String role, String version) {}
