package io.gshare.cli.session;

import io.gshare.cli.operation.OperationFollower;
import io.gshare.cli.operation.StepsPrinter;
import io.gshare.cli.support.CliException;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.session.Session;
import io.gshare.client.session.SessionDetail;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.stream.Collectors;

/** Waits for a session to reach a state, showing the steps of the command its workflow carries out meanwhile. */
final class SessionWatcher {

  private final GshareClient api;
  private final Duration poll;
  private final StepsPrinter printer;

  SessionWatcher(GshareClient api, Duration poll, StepsPrinter printer) {
    this.api = api;
    this.poll = poll;
    this.printer = printer;
  }

  SessionDetail until(String id, Set<Session.State> wanted, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (true) {
      SessionDetail detail = api.get(ApiPaths.session(id), SessionDetail.class);
      if (detail.operation() != null && !detail.operation().steps().isEmpty()) {
        printer.show("session " + id + " (" + detail.operation().kind() + ")", detail.operation().steps());
      }
      Session.State state = detail.session().stateValue();
      if (wanted.contains(state)) {
        return detail;
      }
      if (state.ended()) {
        throw new CliException("session " + id + " is " + state.wire()
            + (detail.session().stateReason() == null ? "" : ": " + detail.session().stateReason())
            + "; it will not become " + names(wanted));
      }
      if (Instant.now().isAfter(deadline)) {
        throw new CliException("session " + id + " is still " + state.wire() + " after " + timeout.toSeconds()
            + " s, not " + names(wanted) + " (gshare sessions logs " + id + ")");
      }
      OperationFollower.sleep(poll);
    }
  }

  private static String names(Set<Session.State> states) {
    return states.stream().map(Session.State::wire).sorted().collect(Collectors.joining(" or "));
  }
}
