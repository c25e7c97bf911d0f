package io.gshare.sim.kube;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.stream.Stream;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificates a local Kubernetes control plane needs, made on the fly (as kubeadm's {@code certs} phase makes
 * them): a cluster CA, the apiserver's serving certificate for loopback and the in-cluster names, client
 * certificates whose subject is the user and whose organizations are its groups, and the service-account key
 * pair that signs bound tokens. Kept in a directory and reused while it lasts, so a restarted cluster keeps its
 * CA and the kubeconfigs written before stay valid.
 *
 * <p>Keys cost: an RSA-2048 key took a second or more of CPU on a busy test machine, and a cluster needs eight (more
 * with its kubelets' serving certificates), so tests that start a cluster per class spent minutes making keys. The
 * CA and the service-account signer, which keep one cluster's credentials from another's, get a fresh ECDSA P-256 key
 * per cluster (made in microseconds; the apiserver, the controller-manager and Go's TLS take them). The leaves'
 * keys, which the clients load (fabric8 reads RSA keys without BouncyCastle), come from a few RSA keys made once per
 * JVM: a certificate is still the cluster CA's alone, so sharing a leaf key across test clusters trusts nothing more.
 */
final class KubePki {

  private static final Duration VALIDITY = Duration.ofDays(3650);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final KeyPair[] LEAF_KEYS = new KeyPair[4];
  private static final Provider BOUNCY_CASTLE = new BouncyCastleProvider();

  /** A PEM certificate and its PEM key, as files. */
  record Pair(Path certificate, Path key) {}

  private final Path dir;
  private final KeyPair caKeys;
  private final X509Certificate caCertificate;

  private KubePki(Path dir, KeyPair caKeys, X509Certificate caCertificate) {
    this.dir = dir;
    this.caKeys = caKeys;
    this.caCertificate = caCertificate;
  }

  /** The PKI in {@code dir}: its CA read back when present (with the same key), else made. */
  static KubePki in(Path dir) {
    try {
      Files.createDirectories(dir);
      Path caCert = dir.resolve("ca.crt");
      Path caKey = dir.resolve("ca.key");
      if (Files.exists(caCert) && Files.exists(caKey)) {
        return new KubePki(dir, Pem.readKeyPair(caKey), Pem.readCertificate(caCert));
      }
      KeyPair keys = ec();
      X500Name subject = name("gshare-local-kubernetes-ca", List.of());
      X509Certificate certificate = sign(subject, keys, subject, keys, true, List.of(), null);
      write(caKey, Pem.of(keys.getPrivate()));
      write(caCert, Pem.of(certificate));
      return new KubePki(dir, keys, certificate);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path caCertificate() {
    return dir.resolve("ca.crt");
  }

  String caCertificatePem() {
    return Pem.of(caCertificate);
  }

  /** The apiserver's serving certificate: loopback, localhost and the names pods use in a cluster. */
  Pair serving(String name, List<String> dnsNames, List<String> ipAddresses) {
    return issue(name, name, List.of(), dnsNames, ipAddresses, KeyPurposeId.id_kp_serverAuth);
  }

  /** A client certificate: the apiserver takes {@code user} from its CN and {@code groups} from its O. */
  Pair client(String file, String user, List<String> groups) {
    return issue(file, user, groups, List.of(), List.of(), KeyPurposeId.id_kp_clientAuth);
  }

  /** The key pair that signs and verifies service-account tokens: {@code sa.key} and {@code sa.pub}. */
  Pair serviceAccountKeys() {
    Path key = dir.resolve("sa.key");
    Path pub = dir.resolve("sa.pub");
    if (!Files.exists(key) || !Files.exists(pub)) {
      KeyPair keys = ec();
      write(key, Pem.of(keys.getPrivate()));
      write(pub, Pem.of(keys.getPublic()));
    }
    return new Pair(pub, key);
  }

  private Pair issue(String file, String commonName, List<String> organizations, List<String> dnsNames,
      List<String> ipAddresses, KeyPurposeId purpose) {
    Path cert = dir.resolve(file + ".crt");
    Path key = dir.resolve(file + ".key");
    if (Files.exists(cert) && Files.exists(key)) {
      return new Pair(cert, key);
    }
    KeyPair keys = leafKey(file);
    GeneralName[] names = Stream.concat(
            dnsNames.stream().map(n -> new GeneralName(GeneralName.dNSName, n)),
            ipAddresses.stream().map(ip -> new GeneralName(GeneralName.iPAddress, ip)))
        .toArray(GeneralName[]::new);
    X509Certificate certificate = sign(name(commonName, organizations), keys,
        X500Name.getInstance(caCertificate.getSubjectX500Principal().getEncoded()), caKeys, false, List.of(names),
        purpose);
    write(key, Pem.of(keys.getPrivate()));
    write(cert, Pem.of(certificate));
    return new Pair(cert, key);
  }

  private static X500Name name(String commonName, List<String> organizations) {
    X500NameBuilder builder = new X500NameBuilder(BCStyle.INSTANCE);
    organizations.forEach(o -> builder.addRDN(BCStyle.O, o));
    builder.addRDN(BCStyle.CN, commonName);
    return builder.build();
  }

  private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, X500Name issuer, KeyPair issuerKeys,
      boolean ca, List<GeneralName> altNames, KeyPurposeId purpose) {
    try {
      Instant now = Instant.now();
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, new BigInteger(127, RANDOM),
          Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(VALIDITY)), subject, subjectKeys.getPublic());
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      builder.addExtension(Extension.subjectKeyIdentifier, false,
          extensions.createSubjectKeyIdentifier(subjectKeys.getPublic()));
      if (ca) {
        builder.addExtension(Extension.keyUsage, true,
            new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
      } else {
        builder.addExtension(Extension.authorityKeyIdentifier, false,
            extensions.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
        builder.addExtension(Extension.keyUsage, true,
            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      }
      if (!altNames.isEmpty()) {
        builder.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(altNames.toArray(GeneralName[]::new)));
      }
      return new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder(signatureAlgorithm(issuerKeys)).build(issuerKeys.getPrivate())));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("could not sign a certificate for " + subject, e);
    }
  }

  private static String signatureAlgorithm(KeyPair issuer) {
    return "EC".equals(issuer.getPrivate().getAlgorithm()) || "ECDSA".equals(issuer.getPrivate().getAlgorithm())
        ? "SHA256withECDSA" : "SHA256withRSA";
  }

  /** The leaf key for a certificate's file name: one of {@link #LEAF_KEYS}, each made once per JVM. */
  private static KeyPair leafKey(String file) {
    int slot = Math.floorMod(file.hashCode(), LEAF_KEYS.length);
    synchronized (LEAF_KEYS) {
      if (LEAF_KEYS[slot] == null) {
        LEAF_KEYS[slot] = rsa();
      }
      return LEAF_KEYS[slot];
    }
  }

  private static KeyPair ec() {
    try {
      // BouncyCastle's keys write as SEC 1 PEM with their curve named, which Go requires; the JDK's lose it.
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", BOUNCY_CASTLE);
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048, RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void write(Path file, String pem) {
    try {
      Files.writeString(file, pem);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (UnsupportedOperationException notPosix) {
      // nothing to tighten
    }
  }

  /** PEM in and out, by BouncyCastle. */
  static final class Pem {
    private Pem() {}

    static String of(Object object) {
      StringWriter out = new StringWriter();
      try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
        writer.writeObject(object);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out.toString();
    }

    static X509Certificate readCertificate(Path file) throws IOException {
      try (var parser = new PEMParser(Files.newBufferedReader(file))) {
        return new JcaX509CertificateConverter()
            .getCertificate((X509CertificateHolder) parser.readObject());
      } catch (CertificateException e) {
        throw new IOException("not a certificate: " + file, e);
      }
    }

    static KeyPair readKeyPair(Path file) throws IOException {
      try (var parser = new PEMParser(Files.newBufferedReader(file))) {
        return new JcaPEMKeyConverter()
            .getKeyPair((PEMKeyPair) parser.readObject());
      }
    }
  }
}
