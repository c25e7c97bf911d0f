package io.gshare.contract.internal;

/**
 * The answer to an {@link InventoryReport}: the rows it changed. The worker logs it; the control plane counts the
 * same changes in {@code gshare_inventory_rows_written_total}.
 */
@WireJson
public record InventoryAnswer(int nodesInserted, int nodesUpdated, int gpusInserted, int gpusUpdated,
    int gpusRemoved) {}
