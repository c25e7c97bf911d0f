package io.gshare.core.catalogue;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
public class OfferingRepository {

  /**
   * @param gpuCount whole GPUs (exclusive); null for a slice
   * @param gpumemMib slice memory (fractional); null for whole GPUs
   * @param clusterHas some attached cluster holds cards of this model (the console's "클러스터 보유" tag)
   */
  public record Offering(String id, String name, String gpuModel, String mode, Integer gpuCount, Integer gpumemMib,
      Integer gpucoresPercent, BigDecimal pricePerHour, boolean active, boolean clusterHas) {}

  static final String SELECT = """
      select o.*, exists (select 1 from gpu_devices g join nodes n on n.id = g.node_id join clusters c on c.id = n.cluster_id
                           where g.model = o.gpu_model and n.removed_at is null and c.status <> 'detached') as cluster_has
        from offerings o
      """;

  private final JdbcClient jdbc;

  OfferingRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<Offering> findAll(boolean activeOnly) {
    return jdbc.sql(SELECT + (activeOnly ? " where o.active" : "") + " order by o.gpu_model, o.mode, o.name")
        .query(OfferingRepository::map).list();
  }

  public Optional<Offering> findById(String id) {
    return jdbc.sql(SELECT + " where o.id = :id").param("id", id).query(OfferingRepository::map).optional();
  }

  public List<Offering> activeForModel(String model) {
    return jdbc.sql(SELECT + " where o.active and o.gpu_model = :m order by o.price_per_hour").param("m", model)
        .query(OfferingRepository::map).list();
  }

  /** Models with cards in some attached cluster and no active offering: visible to admins only. */
  public List<String> unofferedModels() {
    return jdbc.sql("""
        select distinct g.model from gpu_devices g join nodes n on n.id = g.node_id join clusters c on c.id = n.cluster_id
         where n.removed_at is null and c.status <> 'detached'
           and not exists (select 1 from offerings o where o.active and o.gpu_model = g.model)
         order by g.model
        """).query(String.class).list();
  }

  public void insert(Offering o) {
    jdbc.sql("""
        insert into offerings (id, name, gpu_model, mode, gpu_count, gpumem_mib, gpucores_percent, price_per_hour, active)
        values (:id, :name, :model, :mode, :count, :mem, :cores, :price, :active)
        """)
        .param("id", o.id()).param("name", o.name()).param("model", o.gpuModel()).param("mode", o.mode())
        .param("count", o.gpuCount()).param("mem", o.gpumemMib()).param("cores", o.gpucoresPercent())
        .param("price", o.pricePerHour()).param("active", o.active())
        .update();
  }

  public void update(Offering o) {
    jdbc.sql("""
        update offerings set name = :name, gpu_model = :model, mode = :mode, gpu_count = :count, gpumem_mib = :mem,
               gpucores_percent = :cores, price_per_hour = :price, active = :active
         where id = :id
        """)
        .param("id", o.id()).param("name", o.name()).param("model", o.gpuModel()).param("mode", o.mode())
        .param("count", o.gpuCount()).param("mem", o.gpumemMib()).param("cores", o.gpucoresPercent())
        .param("price", o.pricePerHour()).param("active", o.active())
        .update();
  }

  public int delete(String id) {
    return jdbc.sql("delete from offerings where id = :id").param("id", id).update();
  }

  private static Offering map(ResultSet rs, int row) throws SQLException {
    return new Offering(rs.getString("id"), rs.getString("name"), rs.getString("gpu_model"), rs.getString("mode"),
        (Integer) rs.getObject("gpu_count"), (Integer) rs.getObject("gpumem_mib"), (Integer) rs.getObject("gpucores_percent"),
        rs.getBigDecimal("price_per_hour"), rs.getBoolean("active"), rs.getBoolean("cluster_has"));
  }
}
