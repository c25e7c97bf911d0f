package io.gshare.api.bench;

import io.gshare.api.support.InventoryFixture;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.error.GshareException;
import io.gshare.core.placement.PlacementService;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Benchmark, not a test: many clients admit and place sessions at once (each allocation is one
 * transaction on the real PostgreSQL), releasing some as they go, and the figures are printed:
 * allocations/s, p50/p99 latency, refusals, and oversubscriptions counted from the allocation rows
 * afterwards (must be 0).
 *
 * <p>Run: {@code make bench-allocation} (or {@code ... AllocationBench clients requestsPerClient}).
 */
public final class AllocationBench {

  private AllocationBench() {}

  public static void main(String[] args) {
    BenchSupport.main(args, AllocationBench::run);
  }

  private static void run(String[] args) throws Exception {
    int clients = BenchSupport.arg(args, 0, 32);
    int perClient = BenchSupport.arg(args, 1, 100);
    try (ConfigurableApplicationContext context = BenchSupport.startApi(
        Map.of("spring.datasource.hikari.maximum-pool-size", String.valueOf(clients + 4)))) {
      JdbcClient jdbc = context.getBean(JdbcClient.class);
      PlacementService placement = context.getBean(PlacementService.class);
      CreditLedger ledger = context.getBean(CreditLedger.class);
      InventoryFixture inventory = new InventoryFixture(jdbc);
      String model = "NVIDIA A100-SXM4-40GB";
      // 4 clusters x 8 nodes x 4 GPUs, 10 slices each: 1,280 slots for 3,200 requests, so both answers occur.
      for (int c = 0; c < 4; c++) {
        String cluster = inventory.cluster();
        for (int n = 0; n < 8; n++) {
          inventory.node(cluster, "fractional", model, 4, 40960, 10, null);
        }
      }
      String slice = inventory.offering(model, "fractional", null, 4096, 10, 1);
      List<String> users = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        String user = "usr_bench" + i;
        jdbc.sql("insert into users (id, email) values (:id, :e)").param("id", user).param("e", user + "@example.com").update();
        ledger.grant(user, new BigDecimal("1000000"), "bench-" + i, "bench", null);
        users.add(user);
      }

      ExecutorService pool = Executors.newFixedThreadPool(clients);
      List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
      AtomicInteger placed = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      long start = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (String user : users) {
        done.add(pool.submit(() -> {
          List<String> mine = new ArrayList<>();
          for (int r = 0; r < perClient; r++) {
            String session = inventory.session(user, model, "fractional");
            long t0 = System.nanoTime();
            try {
              placement.allocate(new PlacementService.Request(session, user, slice));
              placed.incrementAndGet();
              mine.add(session);
            } catch (GshareException e) {
              refused.incrementAndGet();
            }
            latencies.add(System.nanoTime() - t0);
            if (!mine.isEmpty() && ThreadLocalRandom.current().nextInt(3) == 0) {
              placement.release(mine.remove(ThreadLocalRandom.current().nextInt(mine.size())));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      pool.shutdown();

      int oversubscribed = jdbc.sql("""
          select count(*) from (
            select g.uuid from gpu_devices g join allocations a on a.gpu_uuid = g.uuid and a.released_at is null
             group by g.uuid, g.memory_mib, g.split_count, g.cores_percent
            having sum(a.gpumem_mib) > g.memory_mib or count(*) > g.split_count or sum(a.gpucores_percent) > g.cores_percent
                or (count(*) filter (where a.gpumem_mib is null) > 0 and count(*) > 1)) over
          """).query(Integer.class).single();
      System.out.printf("%nallocation benchmark: %d clients x %d requests, 128 GPUs x 10 slices, a third of placed sessions released as they go%n",
          clients, perClient);
      System.out.printf("  %.1f allocation decisions/s (%d placed, %d refused insufficient_capacity) in %.1f s%n",
          latencies.size() / seconds, placed.get(), refused.get(), seconds);
      System.out.printf("  latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", BenchSupport.percentileMillis(latencies, 50),
          BenchSupport.percentileMillis(latencies, 99), BenchSupport.maxMillis(latencies));
      System.out.printf("  oversubscribed GPUs: %d%n", oversubscribed);
    }
  }
}
