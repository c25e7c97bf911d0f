package io.gshare.client.catalogue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import java.math.BigDecimal;
import java.util.List;

/** What users choose from and what bounds them: offerings, images and the default policy. */
public final class Catalogue {

  private final GshareClient api;

  public Catalogue(GshareClient api) {
    this.api = api;
  }

  public OfferingList offerings() {
    return api.get(ApiPaths.OFFERINGS, OfferingList.class);
  }

  public Offering createOffering(NewOffering offering) {
    return api.post(ApiPaths.OFFERINGS, offering, Offering.class);
  }

  public ImageList images() {
    return api.get(ApiPaths.IMAGES, ImageList.class);
  }

  public Image createImage(NewImage image) {
    return api.post(ApiPaths.IMAGES, image, Image.class);
  }

  /** The default policy as the API answers it (its members grow with each policy the platform learns). */
  public JsonNode defaultPolicy() {
    return api.get(ApiPaths.DEFAULT_POLICY);
  }

  public JsonNode replaceDefaultPolicy(JsonNode policy) {
    return api.put(ApiPaths.DEFAULT_POLICY, policy);
  }

  /**
   * {@code POST /api/v1/offerings}'s body.
   *
   * @param mode exclusive (whole GPUs: {@code gpuCount}) or fractional (a HAMi slice: {@code gpumemMib},
   *     {@code gpucoresPercent})
   */
  public record NewOffering(String name, String gpuModel, String mode, Integer gpuCount, Integer gpumemMib,
      Integer gpucoresPercent, BigDecimal pricePerHour, Boolean active) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Offering(String id, String name, String gpuModel, String mode, Integer gpuCount, Integer gpumemMib,
      Integer gpucoresPercent, BigDecimal pricePerHour, Boolean active) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record OfferingList(List<Offering> items) {
    public OfferingList {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  /** {@code POST /api/v1/images}'s body. */
  public record NewImage(String name, String reference, Integer port, String path, String description,
      Boolean active) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Image(String id, String name, String reference, Integer port, String path, String description,
      Boolean active) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ImageList(List<Image> items) {
    public ImageList {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }
}
