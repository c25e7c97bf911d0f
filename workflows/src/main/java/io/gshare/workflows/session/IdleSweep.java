package io.gshare.workflows.session;

import java.util.List;

/**
 * What one idle-reaper sweep found.
 *
 * @param evaluated running sessions looked at
 * @param idle those whose GPUs show no activity now
 * @param warned those showing the warning that a pause nears
 * @param pauses those idle for their whole timeout, after their warning: each is told to pause
 */
public record IdleSweep(int evaluated, int idle, int warned, List<Pause> pauses) {

  public IdleSweep {
    pauses = pauses == null ? List.of() : List.copyOf(pauses);
  }

  /** A session to pause, with the reason it will show ("idle for 30 minutes by dcgm"). */
  public record Pause(String sessionId, String reason) {}
}
