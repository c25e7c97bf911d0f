package io.gshare.client.session;

/** {@code POST /api/v1/sessions}'s body. */
public record NewSession(String offeringId, String imageId, String volumeId, String name, String clusterId) {}
