package io.gshare.client.session;

import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;

/** {@code /api/v1/sessions}: a user's interactive GPU sessions. */
public final class Sessions {

  private final GshareClient api;

  public Sessions(GshareClient api) {
    this.api = api;
  }

  /** Starts a session (its workflow places, admits and creates it); the answer is the session as just accepted. */
  public SessionDetail create(NewSession session) {
    return api.post(ApiPaths.SESSIONS, session, SessionDetail.class);
  }

  public SessionDetail get(String id) {
    return api.get(ApiPaths.session(id), SessionDetail.class);
  }

  /** The first page, newest first, of the sessions the caller may see. */
  public SessionList list() {
    return api.get(ApiPaths.SESSIONS, SessionList.class);
  }

  /** One page of at most {@code limit} from {@code cursor} (null: the first). */
  public SessionList list(int limit, String cursor) {
    return api.get(ApiPaths.query(ApiPaths.SESSIONS, "limit", limit, "cursor", cursor), SessionList.class);
  }

  public SessionDetail pause(String id) {
    return api.post(ApiPaths.session(id) + "/pause", null, SessionDetail.class);
  }

  public SessionDetail resume(String id) {
    return api.post(ApiPaths.session(id) + "/resume", null, SessionDetail.class);
  }

  public SessionDetail terminate(String id) {
    return GshareClient.convert(api.delete(ApiPaths.session(id)), SessionDetail.class);
  }
}
