package io.gshare.api.cli;

import io.gshare.api.user.UserService;
import java.io.PrintStream;
import java.util.regex.Pattern;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code java -jar gshare-api.jar bootstrap-superadmin [--email EMAIL]}: makes sure a super admin
 * exists (a second run reuses it) and prints a fresh API token for it, and nothing else.
 */
public final class BootstrapSuperAdminCommand {

  public static final String NAME = "bootstrap-superadmin";
  static final String USAGE = "usage: gshare-api bootstrap-superadmin [--email EMAIL]   (env GSHARE_DB_*, GSHARE_SECURITY_KEY_DIR)";
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+");

  private BootstrapSuperAdminCommand() {}

  /** The email to use, or null after printing the usage. */
  public static String parse(String[] args, PrintStream err) {
    String email = "superadmin@example.com";
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--email") && i + 1 < args.length) {
        email = args[++i];
      } else if (args[i].startsWith("--email=")) {
        email = args[i].substring("--email=".length());
      } else if (args[i].startsWith("--spring.") || args[i].startsWith("--gshare.")) {
        continue; // Spring properties pass through
      } else {
        err.println("bootstrap-superadmin: unexpected argument " + args[i]);
        err.println(USAGE);
        return null;
      }
    }
    if (!EMAIL.matcher(email).matches()) {
      err.println("bootstrap-superadmin: '" + email + "' is not an email address");
      err.println(USAGE);
      return null;
    }
    return email;
  }

  public static int run(ConfigurableApplicationContext context, String email, PrintStream out) {
    out.println(context.getBean(UserService.class).bootstrapSuperAdmin(email).token());
    return 0;
  }
}
