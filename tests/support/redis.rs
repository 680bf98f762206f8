//! A real `redis-server` for the tests: started on a free loopback port with a data
//! directory of its own (nothing saved to disk), stopped when dropped, and able to be
//! killed and started again on the same port to test outages. Never the machine's own
//! Redis on 6379. When `redis-server` is not installed, [`RedisServer::start`] returns
//! `None` and the caller prints a notice and skips (`.ci/run` installs it).

use super::serve::free_port;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the server may take to answer after it was started.
const START_LIMIT: Duration = Duration::from_secs(10);

/// A `redis-server` child process on 127.0.0.1.
pub struct RedisServer {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts a server, or `None` (with a notice on stderr) when `redis-server` is not
    /// installed.
    pub async fn start() -> Option<RedisServer> {
        if Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_err()
        {
            eprintln!(
                "NOTICE: redis-server is not installed; skipping (apt-get install redis-server)"
            );
            return None;
        }
        let mut server = RedisServer {
            port: free_port(),
            dir: tempfile::tempdir().expect("a temporary directory"),
            child: None,
        };
        server.run().await;
        Some(server)
    }

    /// `redis://127.0.0.1:{port}/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server at once (SIGKILL): connections drop, nothing is answered.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port, empty.
    pub async fn restart(&mut self) {
        self.kill();
        self.run().await;
    }

    async fn run(&mut self) {
        let log: PathBuf = self.dir.path().join("redis.log");
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .arg("--logfile")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        let started = Instant::now();
        while started.elapsed() < START_LIMIT {
            if self.ping().await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "redis-server on port {} did not answer within {START_LIMIT:?}; its log: {}",
            self.port,
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    /// Whether the server answers `PING`.
    pub async fn ping(&self) -> bool {
        let Ok(client) = redis::Client::open(self.url()) else {
            return false;
        };
        let Ok(Ok(mut connection)) = tokio::time::timeout(
            Duration::from_millis(500),
            client.get_multiplexed_async_connection(),
        )
        .await
        else {
            return false;
        };
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .is_ok()
    }

    /// A plain connection, to look at the keys the bot wrote.
    pub async fn connection(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url())
            .expect("url")
            .get_multiplexed_async_connection()
            .await
            .expect("connect to the test redis")
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
