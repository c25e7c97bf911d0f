package io.gshare.api.volume;

import java.time.Duration;

/**
 * The seam between the volume API and the reclaim workflow: a deleted volume's reclaim is started here
 * after the volume is marked {@code deleting}, and a restore within the grace is sent here before the
 * restore commits. {@link TemporalVolumeReclaimStarter} is the implementation.
 */
public interface VolumeReclaimStarter {

  /** Starts (or restarts) the volume's reclaim: its claims go after {@code grace}, unless it is restored first. */
  void start(String volumeId, Duration grace);

  /** Tells the volume's reclaim that it was restored; nothing when no reclaim runs for it. */
  void restore(String volumeId);
}
