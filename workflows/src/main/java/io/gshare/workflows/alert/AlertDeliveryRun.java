package io.gshare.workflows.alert;

/**
 * What one delivery pass did.
 *
 * @param resolved alerts resolved because their condition ended
 * @param delivered alerts the webhook took
 * @param failed deliveries the receiver did not take (each tried again after its backoff)
 */
public record AlertDeliveryRun(int resolved, int delivered, int failed) {}
