package io.gshare.activities.temporal;

import io.temporal.serviceclient.SimpleSslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * How a gShare process authenticates to Temporal, for the api and for the cluster-workers that dial it from
 * other clusters: mutual TLS (a client certificate and key, PEM, PKCS#8), the CA that signed the server's
 * certificate (else the JVM's trust store), the name to verify it against (when the address is not it), and an
 * API key sent as {@code Authorization: Bearer} on every call (the file is read again on each call, so a
 * rotated Secret takes effect without a restart). All empty: plaintext, as the dev server speaks.
 *
 * @param clientCert the client certificate chain (PEM); with {@code clientKey}
 * @param clientKey its private key (PEM, PKCS#8)
 * @param serverCa the CA certificate(s) (PEM) to trust for the server; null: the JVM's trust store
 * @param serverName the server name to verify (the TLS authority); null: the address's host
 * @param apiKeyFile a file holding an API key; null: none
 * @param tlsRequested TLS even with no file (the JVM's trust store), as through the internal plane's ingress
 */
public record TemporalClientAuth(Path clientCert, Path clientKey, Path serverCa, String serverName, Path apiKeyFile,
    boolean tlsRequested) {

  public static final TemporalClientAuth NONE = new TemporalClientAuth(null, null, null, null, null);

  /** TLS when a certificate or CA file is given. */
  public TemporalClientAuth(Path clientCert, Path clientKey, Path serverCa, String serverName, Path apiKeyFile) {
    this(clientCert, clientKey, serverCa, serverName, apiKeyFile, false);
  }

  /** TLS is on when asked for, or when a client certificate or a server CA is given. */
  public boolean tls() {
    return tlsRequested || clientCert != null || serverCa != null;
  }

  /** What is wrong with these settings (files missing, a certificate without its key); empty when usable. */
  public List<String> problems(String certName, String keyName, String caName, String apiKeyName) {
    List<String> problems = new ArrayList<>();
    if ((clientCert == null) != (clientKey == null)) {
      problems.add(certName + " and " + keyName + " go together: set both or neither");
    }
    readable(clientCert, certName, problems);
    readable(clientKey, keyName, problems);
    readable(serverCa, caName, problems);
    readable(apiKeyFile, apiKeyName, problems);
    return problems;
  }

  private static void readable(Path file, String name, List<String> problems) {
    if (file != null && !Files.isReadable(file)) {
      problems.add(name + " '" + file + "' is not a readable file");
    }
  }

  /** Applies these settings to the stubs' options. */
  public WorkflowServiceStubsOptions.Builder applyTo(WorkflowServiceStubsOptions.Builder options) {
    // Said outright: with an API key and no TLS files the SDK would speak TLS all the same, and a worker sending
    // its operator token to the control plane's Temporal gateway on loopback (the dev runtime) speaks plain HTTP/2.
    if (!tls()) {
      options.setEnableHttps(false);
    }
    if (tls()) {
      try {
        if (clientCert != null) {
          // The builder reads the streams when it builds: keep them open until then.
          try (InputStream cert = Files.newInputStream(clientCert); InputStream key = Files.newInputStream(clientKey)) {
            options.setSslContext(trustingCa(SimpleSslContextBuilder.forPKCS8(cert, key)).build());
          }
        } else {
          options.setSslContext(trustingCa(SimpleSslContextBuilder.noKeyOrCertChain()).build());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the Temporal TLS files", e);
      }
    }
    if (serverName != null && !serverName.isBlank()) {
      options.setChannelInitializer(channel -> channel.overrideAuthority(serverName));
    }
    if (apiKeyFile != null) {
      Path file = apiKeyFile;
      options.addApiKey(() -> {
        try {
          return Files.readString(file).trim();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read the Temporal API key " + file, e);
        }
      });
    }
    return options;
  }

  private SimpleSslContextBuilder trustingCa(SimpleSslContextBuilder ssl) throws IOException {
    return serverCa == null ? ssl : ssl.setTrustManager(trusting(serverCa));
  }

  private static TrustManager trusting(Path caFile) throws IOException {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, ca);
      }
      if (i == 0) {
        throw new IOException(caFile + " holds no PEM certificate");
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory.getTrustManagers()[0];
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot use " + caFile + " as the Temporal server's CA: " + e.getMessage(), e);
    }
  }
}
