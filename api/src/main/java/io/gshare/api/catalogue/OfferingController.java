package io.gshare.api.catalogue;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.catalogue.OfferingRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.util.List;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** GPU offerings: what a model costs and in which shape (whole GPUs or a slice) it is sold. */
@RestController
@RequestMapping("/api/v1/offerings")
@Tag(name = "catalogue")
class OfferingController {

  private final OfferingRepository offerings;

  OfferingController(OfferingRepository offerings) {
    this.offerings = offerings;
  }

  /**
   * @param gpuCount whole GPUs, exclusive mode only
   * @param gpumemMib slice memory, fractional mode only
   * @param gpucoresPercent slice compute share, fractional mode only
   */
  record OfferingInput(@NotBlank @Size(max = 100) String name, @NotBlank @Size(max = 200) String gpuModel,
      @NotNull @Pattern(regexp = "exclusive|fractional") String mode, @Min(1) @Max(64) Integer gpuCount,
      @Min(1) Integer gpumemMib, @Min(1) @Max(100) Integer gpucoresPercent,
      @NotNull @DecimalMin("0") @Digits(integer = 14, fraction = 6) BigDecimal pricePerHour, Boolean active) {}

  record OfferingChange(@Size(min = 1, max = 100) String name,
      @DecimalMin("0") @Digits(integer = 14, fraction = 6) BigDecimal pricePerHour, Boolean active,
      @Min(1) @Max(64) Integer gpuCount, @Min(1) Integer gpumemMib, @Min(1) @Max(100) Integer gpucoresPercent) {}

  /** @param unofferedModels (admins) models with cards but no active offering: unserviceable until one exists */
  record OfferingList(List<OfferingRepository.Offering> items, List<String> unofferedModels) {}

  @GetMapping
  @Operation(summary = "Offerings; cluster_has marks models with cards in an attached cluster. Users see active ones; admins all, plus models without an offering")
  OfferingList list(Caller.User caller) {
    if (caller.isAdmin()) {
      return new OfferingList(offerings.findAll(false), offerings.unofferedModels());
    }
    return new OfferingList(offerings.findAll(true), null);
  }

  @GetMapping("/{id}")
  @Operation(summary = "One offering (inactive ones for admins only)")
  OfferingRepository.Offering get(Caller.User caller, @PathVariable String id) {
    OfferingRepository.Offering offering = offerings.findById(id).orElseThrow(() -> GshareException.notFound("offering", id));
    if (!offering.active() && !caller.isAdmin()) {
      throw GshareException.notFound("offering", id);
    }
    return offering;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Create an offering (admins)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  OfferingRepository.Offering create(Caller.User caller, @Valid @RequestBody OfferingInput in) {
    OfferingRepository.Offering offering = shape(new OfferingRepository.Offering(NewIds.next("off"), in.name(),
        in.gpuModel(), in.mode(), in.gpuCount(), in.gpumemMib(), in.gpucoresPercent(), in.pricePerHour(),
        in.active() == null || in.active(), false));
    write(() -> offerings.insert(offering), in.name());
    return offerings.findById(offering.id()).orElseThrow();
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Change an offering's name, price, shape or active flag (admins); sessions keep the price they started with")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  OfferingRepository.Offering update(Caller.User caller, @PathVariable String id, @Valid @RequestBody OfferingChange in) {
    OfferingRepository.Offering o = offerings.findById(id).orElseThrow(() -> GshareException.notFound("offering", id));
    OfferingRepository.Offering changed = shape(new OfferingRepository.Offering(id, in.name() == null ? o.name() : in.name(),
        o.gpuModel(), o.mode(), in.gpuCount() == null ? o.gpuCount() : in.gpuCount(),
        in.gpumemMib() == null ? o.gpumemMib() : in.gpumemMib(),
        in.gpucoresPercent() == null ? o.gpucoresPercent() : in.gpucoresPercent(),
        in.pricePerHour() == null ? o.pricePerHour() : in.pricePerHour(), in.active() == null ? o.active() : in.active(), false));
    write(() -> offerings.update(changed), changed.name());
    return offerings.findById(id).orElseThrow();
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Delete an offering (admins); sessions that used it keep their model and price")
  @AdminOnly
  void delete(Caller.User caller, @PathVariable String id) {
    if (offerings.delete(id) == 0) {
      throw GshareException.notFound("offering", id);
    }
  }

  /** Exclusive offerings sell whole GPUs (a count); fractional ones a slice (memory and cores). */
  private static OfferingRepository.Offering shape(OfferingRepository.Offering o) {
    if ("exclusive".equals(o.mode())) {
      if (o.gpuCount() == null || o.gpumemMib() != null || o.gpucoresPercent() != null) {
        throw new GshareException(ProblemCode.VALIDATION_FAILED,
            "an exclusive offering has gpu_count and no gpumem_mib or gpucores_percent");
      }
    } else if (o.gpuCount() != null || o.gpumemMib() == null || o.gpucoresPercent() == null) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED,
          "a fractional offering has gpumem_mib and gpucores_percent and no gpu_count");
    }
    return o;
  }

  private static void write(Runnable write, String name) {
    try {
      write.run();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "an offering named " + name + " already exists");
    } catch (DataIntegrityViolationException e) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "the offering breaks a constraint: "
          + e.getMostSpecificCause().getMessage());
    }
  }
}
