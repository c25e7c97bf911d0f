package io.gshare.dev;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The load balancer in front of the api replicas ({@code --api-replicas} 2 or more), as a Service and its ingress are
 * in a cluster: a real nginx (the one the simulated clusters' ingress runs, {@link DevIngress}) with one upstream of
 * every replica's HTTP port and one of every replica's Temporal gateway.
 *
 * <ul>
 *   <li>HTTP: a connection refused or timed out goes to the next replica ({@code proxy_next_upstream error timeout});
 *       a replica that failed is left out for {@value #FAIL_TIMEOUT_SECONDS} s. A request cut off by a replica that
 *       died under it (nginx's own 502, or 504 when it timed out) is answered {@code 503} with
 *       {@code Retry-After: 1} and an RFC 9457 problem in words, so that a client sends again what is safe to send
 *       again; the api's own answers, 5xx included, pass as they are. Bodies stream both ways (server-sent events,
 *       the api's own size limit). A browser is kept on the replica that first answered it (cookie
 *       {@value #AFFINITY_COOKIE}, as the chart asks ingress-nginx to), for the sign-in's round trip, and moves on
 *       when that replica is gone.
 *   <li>gRPC (h2c): the cluster-workers' Temporal calls, to any replica's gateway, with read timeouts longer than
 *       Temporal's long polls; a worker whose replica went away reconnects through it to another.
 * </ul>
 */
final class ApiFront implements AutoCloseable {

  static final int FAIL_TIMEOUT_SECONDS = 2;
  static final String AFFINITY_COOKIE = "gshare_replica";
  /** The problem the front answers for a request cut off by a replica that went away. */
  static final String UNAVAILABLE_PROBLEM = "{\"type\":\"urn:gshare:problem:unavailable\",\"title\":\"Service unavailable\","
      + "\"status\":503,\"detail\":\"the api replica that took this request went away before it answered (a restart or a"
      + " crash); another replica answers it when it is sent again. A request safe to repeat (GET, PUT, DELETE, or one"
      + " with an Idempotency-Key) can be sent again after Retry-After seconds; any other may already have been carried"
      + " out, so check before sending it again\",\"code\":\"unavailable\"}";

  private final Nginx nginx;

  private ApiFront(Nginx nginx) {
    this.nginx = nginx;
  }

  /**
   * Starts nginx on {@code 127.0.0.1:httpPort} (HTTP) and {@code 127.0.0.1:grpcPort} (the gateways), before any
   * replica listens (until one does, it answers 503), or fails saying why.
   */
  static ApiFront start(Path nginxBinary, int httpPort, List<Integer> replicaPorts, int grpcPort,
      List<Integer> gatewayPorts, Path dir) throws IOException {
    Nginx nginx = Nginx.start(nginxBinary, dir, config(dir, httpPort, replicaPorts, grpcPort, gatewayPorts),
        "the api replicas' front", "run hack/tools.sh (make tools); two or more api replicas need it in front of them");
    ApiFront front = new ApiFront(nginx);
    try {
      nginx.awaitListening(httpPort, Duration.ofSeconds(15));
      nginx.awaitListening(grpcPort, Duration.ofSeconds(5));
    } catch (RuntimeException e) {
      front.close();
      throw e;
    }
    return front;
  }

  /** The nginx configuration: the replicas' HTTP upstream (and one per replica, for affinity), their gateways'. */
  static String config(Path dir, int httpPort, List<Integer> replicaPorts, int grpcPort, List<Integer> gatewayPorts) {
    String servers = replicaPorts.stream().map(ApiFront::server).collect(Collectors.joining());
    StringBuilder affinity = new StringBuilder();
    StringBuilder cookieUpstreams = new StringBuilder();
    StringBuilder answered = new StringBuilder();
    for (int i = 0; i < replicaPorts.size(); i++) {
      // Replica i first, the others as backups: a browser stays on its replica while it lives.
      StringBuilder group = new StringBuilder(server(replicaPorts.get(i)));
      for (int j = 0; j < replicaPorts.size(); j++) {
        if (j != i) {
          group.append("    server 127.0.0.1:").append(replicaPorts.get(j)).append(" backup;\n");
        }
      }
      affinity.append("  upstream gshare_api_").append(i).append(" {\n").append(group).append("  }\n");
      cookieUpstreams.append("    \"").append(i).append("\" gshare_api_").append(i).append(";\n");
      // The replica that answered is the last address nginx tried.
      answered.append("    \"~(^|, )127\\.0\\.0\\.1:").append(replicaPorts.get(i)).append("$\" \"").append(i)
          .append("\";\n");
    }
    String gateways = gatewayPorts.stream().map(ApiFront::server).collect(Collectors.joining());
    int tries = replicaPorts.size() + 1;
    return """
        worker_processes 1;
        daemon off;
        pid %1$s/nginx.pid;
        error_log %1$s/logs/error.log notice;
        events { worker_connections 1024; }
        http {
          log_format front '$remote_addr [$time_local] "$request" $status $body_bytes_sent'
                           ' upstream=$upstream_addr upstream_status=$upstream_status $request_time';
          access_log %1$s/logs/access.log front;
          client_body_temp_path %1$s/tmp/body;
          proxy_temp_path %1$s/tmp/proxy;
          fastcgi_temp_path %1$s/tmp/fastcgi;
          uwsgi_temp_path %1$s/tmp/uwsgi;
          scgi_temp_path %1$s/tmp/scgi;

          upstream gshare_api {
        %2$s  }
        %3$s
          map $cookie_%4$s $gshare_api_upstream {
            default gshare_api;
        %5$s  }
          map $upstream_addr $gshare_answered {
            default "";
        %6$s  }
          # Set the cookie when it names no replica or another one than the one that answered.
          map "$cookie_%4$s|$gshare_answered" $gshare_affinity {
            "~^(\\d+)\\|\\1$" "";
            "~\\|$" "";
            default "%4$s=$gshare_answered; Path=/; HttpOnly; SameSite=Lax";
          }

          upstream gshare_gateway {
        %7$s  }

          server {
            listen 127.0.0.1:%8$d default_server;
            server_name _;
            # The api sets its own limits and streams its answers (server-sent events).
            client_max_body_size 0;
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_connect_timeout 2s;
            proxy_send_timeout 300s;
            proxy_read_timeout 300s;
            # A replica that refuses the connection or does not answer: the next one.
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries %9$d;
            # What nginx answers itself (no replica up; one that died under a request): 503, Retry-After, in words.
            # The api's own answers pass as they are (proxy_intercept_errors off).
            error_page 502 504 =503 @unavailable;
            location / {
              add_header Set-Cookie $gshare_affinity always;
              proxy_pass http://$gshare_api_upstream;
            }
            location @unavailable {
              default_type application/problem+json;
              add_header Retry-After 1 always;
              add_header Cache-Control no-store always;
              return 503 '%10$s';
            }
          }

          server {
            listen 127.0.0.1:%11$d http2;
            server_name _;
            # Temporal's long polls last about a minute; a worker's connection lives as long as the worker.
            keepalive_timeout 1h;
            keepalive_requests 1000000;
            client_max_body_size 0;
            client_body_timeout 300s;
            location / {
              grpc_pass grpc://gshare_gateway;
              grpc_connect_timeout 2s;
              grpc_send_timeout 300s;
              grpc_read_timeout 300s;
              grpc_next_upstream error timeout;
              grpc_next_upstream_tries %9$d;
            }
          }
        }
        """.formatted(dir.toAbsolutePath(), servers, affinity, AFFINITY_COOKIE, cookieUpstreams, answered, gateways,
        httpPort, tries, UNAVAILABLE_PROBLEM, grpcPort);
  }

  private static String server(int port) {
    return "    server 127.0.0.1:" + port + " max_fails=1 fail_timeout=" + FAIL_TIMEOUT_SECONDS + "s;\n";
  }

  /** Its access log: a line per request, with the replicas nginx tried and what each answered. */
  Path accessLog() {
    return nginx.logs().resolve("access.log");
  }

  boolean isAlive() {
    return nginx.isAlive();
  }

  @Override
  public void close() {
    nginx.close();
  }

}
