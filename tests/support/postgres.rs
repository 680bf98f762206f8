//! A real PostgreSQL for the tests: `initdb` into a temporary directory, `postgres` on a
//! free loopback port (no fsync: nothing here needs to survive), stopped when dropped.
//! Never the machine's own server on 5432. The binaries are looked for on `PATH` and
//! under `/usr/lib/postgresql/*/bin` (where Debian puts them); when they are absent,
//! [`PostgresServer::start`] returns `None` and the caller prints a notice and skips
//! (`.ci/run` installs them). PostgreSQL refuses to run as root, so as root both run as
//! `nobody` (through `setpriv`), in a directory given to that user.
//!
//! For outage tests, [`PostgresServer::stop`] stops the server (connections are cut and
//! new ones refused) and [`PostgresServer::restart`] starts it again on the same port
//! over the same data directory, so what was written before is still there.

use super::serve::free_port;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the server may take to accept connections.
const START_LIMIT: Duration = Duration::from_secs(30);

/// How long a stopped server may take to shut down before it is killed.
const STOP_LIMIT: Duration = Duration::from_secs(10);

/// A `postgres` child process on 127.0.0.1, trust authentication, user `postgres`.
pub struct PostgresServer {
    port: u16,
    dir: tempfile::TempDir,
    /// The data directory `initdb` made (kept across [`PostgresServer::restart`]).
    data: PathBuf,
    /// The `postgres` binary.
    postgres: PathBuf,
    /// Whether it runs as `nobody` (this process is root).
    as_nobody: bool,
    /// The running server; `None` while stopped.
    child: Option<Child>,
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
        let mut server = PostgresServer {
            port: free_port(),
            dir,
            data,
            postgres,
            as_nobody,
            child: None,
        };
        server.run().await;
        Some(server)
    }

    /// Starts `postgres` over the data directory and waits until it accepts
    /// connections.
    ///
    /// # Panics
    /// If it does not within [`START_LIMIT`] (its log is shown).
    async fn run(&mut self) {
        let log = self.log_path();
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null());
        let child = command(&self.postgres, self.as_nobody)
            .arg("-D")
            .arg(&self.data)
            .args(["-p", &self.port.to_string()])
            .arg("-k")
            .arg(self.dir.path())
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
            .args(["-c", "synchronous_commit=off", "-c", "full_page_writes=off"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("postgres starts");
        self.child = Some(child);
        let started = Instant::now();
        while started.elapsed() < START_LIMIT {
            if self.accepts_connections().await {
                return;
            }
            let exited = self
                .child
                .as_mut()
                .and_then(|child| child.try_wait().ok().flatten());
            if let Some(status) = exited {
                self.child = None;
                panic!(
                    "postgres on port {} exited ({status}) before accepting connections; its log:\n{}",
                    self.port,
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "postgres on port {} did not accept connections within {START_LIMIT:?}; its log:\n{}",
            self.port,
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    /// Where the server's own log (its stderr) goes.
    fn log_path(&self) -> PathBuf {
        self.dir.path().join("postgres.log")
    }

    /// Stops the server and waits until it has exited: a fast shutdown (SIGINT: open
    /// connections are cut, new ones refused, a checkpoint written), or SIGKILL if it
    /// takes longer than [`STOP_LIMIT`]. Nothing happens when it is already stopped.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let asked = Instant::now();
        while asked.elapsed() < STOP_LIMIT {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Starts the server again (stopping it first if it runs) on the same port over
    /// the same data directory, and waits until it accepts connections.
    ///
    /// # Panics
    /// If it does not within 30 s (its log is shown).
    pub async fn restart(&mut self) {
        self.stop();
        self.run().await;
    }

    /// Whether the server is running (started and not stopped).
    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// Whether a connection can be opened now (within 2 s).
    pub async fn accepts_connections(&self) -> bool {
        matches!(
            tokio::time::timeout(Duration::from_secs(2), self.connect()).await,
            Ok(Ok(_))
        )
    }

    /// A plain connection pool, to look at what the bot wrote.
    pub async fn connect(&self) -> Result<sqlx::PgPool, sqlx::Error> {
        sqlx::postgres::PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(2))
            .connect(&self.url())
            .await
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `postgres://postgres@127.0.0.1:{port}/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
