package io.gshare.api.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.problem.ProblemDocuments;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies over the limit with 413 before anything reads them: 1 MiB for the public
 * API, more for cluster-workers' batched reports. A body without Content-Length is cut off as it is read.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class RequestSizeLimitFilter extends OncePerRequestFilter {

  static final long API_LIMIT = 1024 * 1024;
  static final long INTERNAL_LIMIT = 64L * 1024 * 1024;

  private final ObjectMapper json;

  RequestSizeLimitFilter(ObjectMapper json) {
    this.json = json;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long limit = request.getRequestURI().startsWith(request.getContextPath() + "/internal/") ? INTERNAL_LIMIT : API_LIMIT;
    if (request.getContentLengthLong() > limit) {
      // Tomcat would otherwise keep reading the body to reuse the connection.
      response.setHeader("Connection", "close");
      response.setStatus(413);
      response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
      json.writeValue(response.getOutputStream(), ProblemDocuments.of(ProblemCode.PAYLOAD_TOO_LARGE,
          "the request body exceeds " + limit / 1024 + " KiB", Map.of("limit_bytes", limit)));
      return;
    }
    chain.doFilter(request.getContentLengthLong() < 0 ? new Limited(request, limit) : request, response);
  }

  /** Counts what is read of a body of unknown length and stops at the limit. */
  private static final class Limited extends HttpServletRequestWrapper {

    private final long limit;

    Limited(HttpServletRequest request, long limit) {
      super(request);
      this.limit = limit;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      ServletInputStream in = super.getInputStream();
      return new ServletInputStream() {
        private long read;

        @Override
        public int read() throws IOException {
          int b = in.read();
          if (b >= 0 && ++read > limit) {
            throw new GshareException(ProblemCode.PAYLOAD_TOO_LARGE, "the request body exceeds " + limit / 1024 + " KiB");
          }
          return b;
        }

        @Override
        public boolean isFinished() {
          return in.isFinished();
        }

        @Override
        public boolean isReady() {
          return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
          in.setReadListener(listener);
        }
      };
    }
  }
}
