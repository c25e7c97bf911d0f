package io.gshare.api.error;

import io.gshare.core.error.ProblemCode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The domain problems a handler can answer, beyond those its shape already implies: the served OpenAPI document
 * declares one response per status of these codes ({@link ProblemResponsesCustomizer}). What follows from the
 * handler itself (401 for a token, 403 for {@code @AdminOnly}, 404 for path variables, 400/422/413/415 for a body or
 * query parameters) is derived and not listed here; list what the handler's code paths throw: {@code conflict},
 * {@code node_busy}, {@code temporal_unavailable} where it starts or signals a workflow, a 403 from an object-level
 * check, a 404 for an id named in the body or the query.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ProblemResponses {

  ProblemCode[] value();
}
