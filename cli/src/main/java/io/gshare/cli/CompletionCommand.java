package io.gshare.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code gshare completion bash|zsh}: the shell completion script, generated from the command tree. */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = "Print the shell completion script for bash or zsh.",
    footerHeading = "%nExamples:%n", footer = {
        "  source <(gshare completion bash)                       # bash, this shell",
        "  gshare completion bash > /etc/bash_completion.d/gshare  # bash, every shell",
        "  gshare completion zsh > \"${fpath[1]}/_gshare\"          # zsh (runs bashcompinit)"})
public final class CompletionCommand extends CliCommand implements Runnable {

  /** The shells the script is written for. */
  public enum Shell { BASH, ZSH }

  @Parameters(paramLabel = "SHELL", description = "bash or zsh")
  Shell shell;

  @Override
  public void run() {
    String script = AutoComplete.bash("gshare", spec.root().commandLine());
    if (shell == Shell.ZSH) {
      // picocli's script serves zsh through bash-compatible completion.
      script = "#compdef gshare\nautoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n"
          + script;
    }
    terminal().out().print(script);
    terminal().out().flush();
  }
}
