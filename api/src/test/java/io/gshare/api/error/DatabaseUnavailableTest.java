package io.gshare.api.error;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.core.error.ProblemCode;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionSystemException;

/** Which failures answer 503 database_unavailable rather than 500: PostgreSQL gone, however Spring wraps it. */
class DatabaseUnavailableTest {

  private final ProblemDetailsAdvice advice = new ProblemDetailsAdvice(null);

  @Test
  void aRollbackThatFailedOnTheDroppedConnectionIs503() {
    // What fault scenario 4 met: the placement lock's statement lost its connection, then the rollback failed on it.
    TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
        new SQLException("Connection is closed"));
    rollback.initApplicationException(new DataAccessResourceFailureException("terminating connection",
        new SQLException("FATAL: terminating connection due to administrator command", "57P01")));

    assertThat(codeOf(advice.unexpected(rollback))).isEqualTo(ProblemCode.DATABASE_UNAVAILABLE.code());
  }

  @Test
  void aConnectionExceptionStateIs503WhereverItIsWrapped() {
    RuntimeException wrapped = new IllegalStateException("wrapped",
        new SQLException("An I/O error occurred while sending to the backend.", "08006"));

    assertThat(ProblemDetailsAdvice.isDatabaseUnavailable(wrapped)).isTrue();
    assertThat(codeOf(advice.unexpected(wrapped))).isEqualTo(ProblemCode.DATABASE_UNAVAILABLE.code());
  }

  @Test
  void otherFailuresStay500() {
    TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
        new SQLException("Connection is closed"));
    rollback.initApplicationException(new IllegalStateException("a bug"));

    assertThat(codeOf(advice.unexpected(rollback))).isEqualTo(ProblemCode.INTERNAL.code());
    assertThat(codeOf(advice.unexpected(new SQLException("syntax error", "42601")))).isEqualTo(ProblemCode.INTERNAL.code());
  }

  private static Object codeOf(ResponseEntity<Object> answer) {
    return ((ProblemDetail) answer.getBody()).getProperties().get("code");
  }
}
