package io.gshare.workflows.session;

import io.gshare.workflows.common.WireEnum;

/** What a user asks of a session; each is a workflow update of the same name. */
public enum SessionCommand implements WireEnum {
  PAUSE, RESUME, TERMINATE;

}
