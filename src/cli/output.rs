//! Where output goes: colour decided once for each stream, standard output that a closed
//! pipe ends quietly, messages on standard error.

use std::io::Write as _;

use clap::ValueEnum;

use nemos::report::{Palette, Printed};

use super::args::{ColorArg, Format};

/// Whether each stream is coloured, decided once in `main`.
#[derive(Clone, Copy, Default)]
pub struct Colors {
    pub stdout: bool,
    pub stderr: bool,
}

pub static COLORS: std::sync::OnceLock<Colors> = std::sync::OnceLock::new();

pub fn colors() -> Colors {
    COLORS.get().copied().unwrap_or_default()
}

impl Colors {
    /// `--color` against the environment (NO_COLOR, CLICOLOR_FORCE, TERM) and whether each
    /// stream is a terminal, by anstream's rules.
    pub fn decide(arg: ColorArg) -> Colors {
        use anstream::{AutoStream, ColorChoice};
        match arg {
            ColorArg::Auto => ColorChoice::Auto,
            ColorArg::Always => ColorChoice::Always,
            ColorArg::Never => ColorChoice::Never,
        }
        .write_global();
        Colors {
            stdout: AutoStream::choice(&std::io::stdout()) != ColorChoice::Never,
            stderr: AutoStream::choice(&std::io::stderr()) != ColorChoice::Never,
        }
    }
}

/// The last `--color VALUE` or `--color=VALUE` before a `--`.
pub fn color_in_args(args: impl Iterator<Item = std::ffi::OsString>) -> Option<ColorArg> {
    let mut found = None;
    let mut args = args.skip(1);
    while let Some(arg) = args.next() {
        let value = match arg.to_str() {
            Some("--") => break,
            Some("--color") => args.next(),
            Some(other) => other.strip_prefix("--color=").map(Into::into),
            None => None,
        };
        if let Some(value) = value {
            found = ColorArg::from_str(&value.to_string_lossy(), false)
                .ok()
                .or(found);
        }
    }
    found
}

/// How a text report on stdout is styled: never in JSON or herd's layout.
pub fn palette(format: Format) -> Palette {
    Palette {
        color: format == Format::Text && colors().stdout,
    }
}

/// How messages on stderr are styled.
pub fn err_palette() -> Palette {
    Palette {
        color: colors().stderr,
    }
}

/// Diagnostics text for stderr: each line's leading `error:`, `warning:` or `note:` in colour.
pub fn paint_messages(text: &str) -> String {
    let palette = err_palette();
    if !palette.color {
        return text.to_string();
    }
    text.split_inclusive('\n')
        .map(|line| {
            for (prefix, paint) in [
                ("error:", Palette::bad as fn(Palette, &str) -> String),
                ("warning:", Palette::warn),
                ("note:", Palette::strong),
            ] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    return format!("{}{rest}", paint(palette, prefix));
                }
            }
            line.to_string()
        })
        .collect()
}

/// `error: MESSAGE` on stderr.
pub fn eprint_error(message: &str) {
    eprint!("{}", paint_messages(&format!("error: {message}\n")));
}

/// Standard output through one lock; a closed pipe (`nemos ... | head`) ends the output
/// quietly instead of panicking as `print!` does.
pub struct Stdout {
    pub lock: std::io::StdoutLock<'static>,
    closed: bool,
}

impl Stdout {
    pub fn new() -> Stdout {
        Stdout {
            lock: std::io::stdout().lock(),
            closed: false,
        }
    }

    pub fn write(&mut self, text: &str) {
        if self.closed {
            return;
        }
        if let Err(e) = self.lock.write_all(text.as_bytes()) {
            self.fail(e);
        }
    }

    pub fn fail(&mut self, e: std::io::Error) {
        self.closed = true;
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprint_error(&format!("cannot write the output: {e}"));
        }
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        if !self.closed {
            if let Err(e) = self.lock.flush() {
                self.fail(e);
            }
        }
    }
}

/// A format the command cannot print is refused before any work, not replaced by another:
/// the message that says so.
pub fn format_refusal(printed: Printed, format: Format) -> Option<String> {
    let formats = printed.formats();
    if formats.contains(&format.report()) {
        return None;
    }
    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
    Some(format!(
        "this command cannot print --format {}; it prints {}",
        format.report().name(),
        names.join(" or ")
    ))
}

/// [`format_refusal`], printed.
pub fn check_format(printed: Printed, format: Format) -> Result<(), ()> {
    match format_refusal(printed, format) {
        Some(message) => {
            eprint_error(&message);
            Err(())
        }
        None => Ok(()),
    }
}
