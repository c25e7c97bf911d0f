package io.gshare.workflows.session;

/**
 * A node drain's order to one session: leave node {@code nodeId} by {@code mode}. A session that is
 * not (or no longer) running on that node does nothing, which is what makes a repeated order harmless.
 *
 * @param reason the admin's words, shown to the session's user with the node's name
 */
public record SessionDrainOrder(String nodeId, String hostname, DrainMode mode, String reason) {}
