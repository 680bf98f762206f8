//! Running the `sourcebot` binary from tests: a clean environment (only the
//! SOURCEBOT_ settings a test gives, no proxy variables), off the runtime's threads so
//! the test's servers keep answering.

use std::process::{Command, Output};

/// `sourcebot` with only the given SOURCEBOT_ settings and no proxy variables. Cargo
/// names the binary to integration tests; the examples that share this module have no
/// use for it, and get the name on the `PATH`.
pub fn command(args: &[String], envs: &[(&str, String)]) -> Command {
    let program = option_env!("CARGO_BIN_EXE_sourcebot").unwrap_or("sourcebot");
    command_for(program, args, envs)
}

/// `program` with only the given SOURCEBOT_ settings and no proxy variables.
pub fn command_for(program: &str, args: &[String], envs: &[(&str, String)]) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, _) in std::env::vars() {
        let upper = key.to_ascii_uppercase();
        if key.starts_with("SOURCEBOT_") || key.starts_with("SLACK_") || upper.ends_with("_PROXY") {
            cmd.env_remove(key);
        }
    }
    cmd.envs(envs.iter().map(|(k, v)| (*k, v.as_str())));
    cmd
}

/// Runs the command off the runtime's threads, so the servers keep answering.
pub async fn run(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("run sourcebot"))
        .await
        .expect("join")
}

/// The settings that let probes reach the tests' loopback servers.
pub fn allow_private() -> Vec<(&'static str, String)> {
    vec![("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".to_string())]
}

/// The command's standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The command's standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether `script` (util-linux) is here to give a command a pseudo-terminal; says so
/// on stderr when it is not.
pub fn have_script() -> bool {
    let here = Command::new("script").arg("--version").output().is_ok();
    if !here {
        eprintln!("NOTICE: `script` (util-linux) is missing; the progress line is not tested");
    }
    here
}

/// Runs `sourcebot {args} >/dev/null` on a pseudo-terminal (through `script`) with
/// `envs`, and returns what the terminal showed (stderr, progress line included).
pub async fn on_terminal(args: &str, envs: &[(&str, String)]) -> String {
    let program = option_env!("CARGO_BIN_EXE_sourcebot").unwrap_or("sourcebot");
    let inner = format!("{program} {args} >/dev/null");
    let script = command_for("script", &["-qec".into(), inner, "/dev/null".into()], envs);
    stdout(&run(script).await)
}
