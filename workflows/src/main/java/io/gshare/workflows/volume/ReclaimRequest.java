package io.gshare.workflows.volume;

/**
 * A deleted volume's reclaim ({@code volume-reclaim-<volumeId>}).
 *
 * @param graceSeconds how long the volume can still be restored before its claims are deleted
 */
public record ReclaimRequest(String volumeId, long graceSeconds) {}
