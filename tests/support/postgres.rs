//! A real PostgreSQL for the tests: `initdb` into a temporary directory, `postgres` on a
//! free loopback port (no fsync: nothing here needs to survive), stopped when dropped.
//! Never the machine's own server on 5432. The binaries are looked for on `PATH` and
//! under `/usr/lib/postgresql/*/bin` (where Debian puts them); when they are absent,
//! [`PostgresServer::start`] returns `None` and the caller prints a notice and skips
//! (`.ci/run` installs them). PostgreSQL refuses to run as root, so as root both run as
//! `nobody` (through `setpriv`), in a directory given to that user.

use super::serve::free_port;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the server may take to accept connections.
const START_LIMIT: Duration = Duration::from_secs(30);

/// A `postgres` child process on 127.0.0.1, trust authentication, user `postgres`.
pub struct PostgresServer {
    port: u16,
    _dir: tempfile::TempDir,
    child: Child,
}

/// `name` on PATH or in the newest `/usr/lib/postgresql/*/bin`.
fn binary(name: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| {
            dirs.filter_map(|d| d.ok())
                .map(|d| d.path().join("bin").join(name))
                .collect()
        })
        .unwrap_or_default();
    debian.sort();
    on_path
        .into_iter()
        .chain(debian.into_iter().rev())
        .find(|p| p.is_file())
}

/// `program` run as `nobody` when this process is root, else as it is.
fn command(program: &Path, as_nobody: bool) -> Command {
    if as_nobody {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
        .unwrap_or(false)
}

impl PostgresServer {
    /// Starts a server, or `None` (with a notice) when PostgreSQL is not installed.
    pub async fn start() -> Option<PostgresServer> {
        let (Some(initdb), Some(postgres)) = (binary("initdb"), binary("postgres")) else {
            eprintln!("NOTICE: PostgreSQL (initdb, postgres) is not installed; skipping (apt-get install postgresql)");
            return None;
        };
        let as_nobody = is_root();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("the data directory");
        if as_nobody {
            let status = Command::new("chown")
                .args(["-R", "nobody:nogroup"])
                .arg(dir.path())
                .status()
                .expect("chown runs");
            assert!(status.success(), "chown the data directory to nobody");
        }
        let init = command(&initdb, as_nobody)
            .arg("-D")
            .arg(&data)
            .args(["-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("initdb runs");
        assert!(
            init.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        let port = free_port();
        let child = command(&postgres, as_nobody)
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string()])
            .arg("-k")
            .arg(dir.path())
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
            .args(["-c", "synchronous_commit=off", "-c", "full_page_writes=off"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("postgres starts");
        let server = PostgresServer {
            port,
            _dir: dir,
            child,
        };
        let started = Instant::now();
        while started.elapsed() < START_LIMIT {
            if sqlx::PgPool::connect(&server.url()).await.is_ok() {
                return Some(server);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("postgres on port {port} did not accept connections within {START_LIMIT:?}");
    }

    /// `postgres://postgres@127.0.0.1:{port}/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
