//! The command's own documents, generated from its clap definition: shell completions
//! (`askd completions <shell>`) and man pages (`askd man`).

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;

/// Writes the completion script of `shell` for every subcommand, flag and value of `askd`.
pub fn completions(shell: Shell, out: &mut impl Write) {
    clap_complete::generate(shell, &mut Cli::command(), "askd", out);
}

/// Writes the man page of `askd` (roff, section 1); its SUBCOMMANDS section names the page of
/// each subcommand (`askd-play(1)`, …), which [`man_pages`] writes.
pub fn man(out: &mut impl Write) -> std::io::Result<()> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    clap_mangen::Man::new(command).render(out)
}

/// Writes the man pages of `askd` and of each of its subcommands into `dir` (`askd.1`,
/// `askd-play.1`, …).
pub fn man_pages(dir: &Path) -> std::io::Result<()> {
    clap_mangen::generate_to(Cli::command(), dir)
}
