package io.gshare.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.client.ApiProblemException;
import io.gshare.client.ApiProblemException.ApiProblem;
import io.gshare.client.ApiProblemException.FieldError;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the demo seeding and the clusters' attach say of a refused call (DevRuntime and DemoCatalogue). */
class DemoCatalogueTest {

  @Test
  void aRefusalNamesItsStatusCodeAndDetail() {
    ApiProblemException conflict = new ApiProblemException(new ApiProblem(null, "Conflict", 409,
        "an offering named demo: x already exists", "conflict", null, null));
    assertThat(DemoCatalogue.refusal(conflict))
        .isEqualTo("answered 409 conflict: an offering named demo: x already exists");
  }

  @Test
  void aValidationFailureListsEachFieldsComplaint() {
    ApiProblemException invalid = new ApiProblemException(new ApiProblem(null, "Bad Request", 400,
        "the request is invalid", "validation_failed",
        List.of(new FieldError("gpu_count", "must be at least 1"), new FieldError("name", "must not be blank")),
        null));
    assertThat(DemoCatalogue.refusal(invalid)).isEqualTo("answered 400 validation_failed: the request is invalid"
        + " [gpu_count: must be at least 1; name: must not be blank]");
  }

  @Test
  void withoutADetailTheTitleSaysIt() {
    ApiProblemException bare = new ApiProblemException(new ApiProblem(null, "HTTP 502", 502, null, null, null, null));
    assertThat(DemoCatalogue.refusal(bare)).isEqualTo("answered 502: HTTP 502");
  }

  @Test
  void offeringNamesFitTheApisHundredCharacters() {
    assertThat(DemoCatalogue.offeringName("NVIDIA H100 80GB HBM3", "exclusive"))
        .isEqualTo("demo: NVIDIA H100 80GB HBM3, 1 whole GPU");
    assertThat(DemoCatalogue.offeringName("x".repeat(200), "fractional")).hasSize(100).endsWith(", 1/4 GPU slice");
  }
}
