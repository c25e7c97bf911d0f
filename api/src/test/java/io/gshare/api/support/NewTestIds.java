package io.gshare.api.support;

import java.util.concurrent.atomic.AtomicLong;

/** Readable unique ids for rows tests insert. */
public final class NewTestIds {

  private static final AtomicLong NEXT = new AtomicLong(System.nanoTime() % 1_000_000);

  private NewTestIds() {}

  public static String next(String prefix) {
    return prefix + "_t" + NEXT.incrementAndGet();
  }
}
