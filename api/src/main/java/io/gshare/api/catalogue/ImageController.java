package io.gshare.api.catalogue;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.catalogue.ImageRepository;
import io.gshare.core.catalogue.ImageRepository.Image;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
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

/** The session image catalogue: what a session runs and where its web UI listens. */
@RestController
@RequestMapping("/api/v1/images")
@Tag(name = "catalogue")
class ImageController {

  private final ImageRepository images;

  ImageController(ImageRepository images) {
    this.images = images;
  }

  /** @param reference an image reference, e.g. registry.example.com/gshare/jupyter:2026.11 */
  record ImageInput(@NotBlank @Size(max = 100) String name,
      @NotBlank @Size(max = 500) @Pattern(regexp = "[^\\s]+", message = "must not contain spaces") String reference,
      @Min(1) @Max(65535) Integer port, @Pattern(regexp = "/.*", message = "must start with /") String path,
      @Size(max = 1000) String description, Boolean active) {}

  record ImageChange(@Size(min = 1, max = 100) String name, @Size(max = 500) @Pattern(regexp = "[^\\s]+") String reference,
      @Min(1) @Max(65535) Integer port, @Pattern(regexp = "/.*") String path, @Size(max = 1000) String description,
      Boolean active) {}

  record ImageList(List<Image> items) {}

  @GetMapping
  @Operation(summary = "Session images (users: active ones)")
  ImageList list(Caller.User caller) {
    return new ImageList(images.list(!caller.isAdmin()));
  }

  @GetMapping("/{id}")
  @Operation(summary = "One image")
  Image get(Caller.User caller, @PathVariable String id) {
    return images.findById(id).filter(i -> i.active() || caller.isAdmin())
        .orElseThrow(() -> GshareException.notFound("image", id));
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Add an image (admins); port defaults to 8888 (Jupyter), path to /")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  Image create(Caller.User caller, @Valid @RequestBody ImageInput in) {
    return images.create(new Image(null, in.name(), in.reference(), in.port() == null ? 8888 : in.port(),
        in.path() == null ? "/" : in.path(), in.description(), in.active() == null || in.active()));
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Change an image (admins)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  Image update(Caller.User caller, @PathVariable String id, @Valid @RequestBody ImageChange in) {
    Image i = images.findById(id).orElseThrow(() -> GshareException.notFound("image", id));
    return images.update(new Image(id, in.name() == null ? i.name() : in.name(),
        in.reference() == null ? i.reference() : in.reference(), in.port() == null ? i.port() : in.port(),
        in.path() == null ? i.path() : in.path(), in.description() == null ? i.description() : in.description(),
        in.active() == null ? i.active() : in.active()));
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Remove an image (admins); sessions keep the reference they ran")
  @AdminOnly
  void delete(Caller.User caller, @PathVariable String id) {
    if (!images.delete(id)) {
      throw GshareException.notFound("image", id);
    }
  }
}
