//! Issue 28, the installation database's and Redis's part: `sourcebot serve` keeps
//! working when PostgreSQL or Redis goes away. Run as an operator runs it (a child
//! process, JSON logs on stderr) against the fake Slack and a real PostgreSQL or Redis
//! started by the test, stopped mid-run and started again. Installed by OAuth into two
//! workspaces, a workspace resolved recently goes on being served from the cache while
//! the database is down; one never resolved is acknowledged, counted and logged, not
//! answered; an install attempted meanwhile fails with an error page and leaves no row;
//! `/readyz` says what is down and stays 200; everything comes back with the database.
//! docs/outages.md describes the behaviour. Skipped (with a NOTICE) when PostgreSQL or
//! Redis is not installed.

mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::json;
use support::outage::{
    assert_readyz_shape, degraded, eventually, log_level, serve_command, Reply, Served,
};
use support::postgres::PostgresServer;
use support::redis::RedisServer;
use support::serve::free_port;
use support::slack::{
    app_mention_event, event_callback, sign_request, unix_now, Call, FakeSlack, OAuthGrant,
    BOT_USER_ID, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET,
};

/// `SOURCEBOT_TOKEN_KEY`: 32 bytes as hex.
const TOKEN_KEY: &str = "8d3f1c2b4a5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8";
/// The signing secret `serve` checks Slack's requests with.
const SIGNING_SECRET: &str = "database-outage-signing-secret";
/// The answer API's bearer token.
const API_TOKEN: &str = "database-outage-api-token-0123456789";
/// The cache freshness given to `serve` (`SOURCEBOT_WORKSPACE_CACHE_TTL`).
const CACHE_TTL: Duration = Duration::from_secs(1);
/// The channel the mentions are in.
const CHANNEL: &str = "C0DBOUTAGE";
/// The three workspaces.
const T1: &str = "T0DBONE";
const T2: &str = "T0DBTWO";
const T3: &str = "T0DBTHREE";
/// Slack must have its 2xx within this.
const ACK_LIMIT: Duration = Duration::from_secs(3);
/// Longest wait for something the bot does on its own (an answer, a count, a probe).
const WAIT: Duration = Duration::from_secs(15);
/// `sourcebot serve` installed by OAuth (no bot token), its installations in
/// `database_url`, the answer API on, JSON logs captured.
struct OAuthServe {
    /// The process, asked with a client that does not follow redirects (the install
    /// flow reads them).
    served: Served,
}

impl std::ops::Deref for OAuthServe {
    type Target = Served;

    fn deref(&self) -> &Served {
        &self.served
    }
}

impl OAuthServe {
    /// Starts it and waits until `/readyz` is 200 (the database opened, Slack's routes
    /// and the install routes open).
    async fn start(slack: &FakeSlack, database_url: &str) -> OAuthServe {
        let dir = tempfile::tempdir().expect("tempdir");
        let addr = format!("127.0.0.1:{}", free_port());
        let mut cmd = serve_command(env!("CARGO_BIN_EXE_sourcebot"), dir.path());
        cmd.env("SLACK_CLIENT_ID", OAUTH_CLIENT_ID)
            .env("SLACK_CLIENT_SECRET", OAUTH_CLIENT_SECRET)
            .env("SOURCEBOT_PUBLIC_URL", format!("http://{addr}"))
            .env("SOURCEBOT_TOKEN_KEY", TOKEN_KEY)
            .env("SOURCEBOT_DATABASE_URL", database_url)
            .env("SLACK_SIGNING_SECRET", SIGNING_SECRET)
            .env("SOURCEBOT_SLACK_API_URL", slack.api_url())
            .env("SOURCEBOT_LISTEN", &addr)
            .env("SOURCEBOT_API_TOKEN", API_TOKEN)
            .env("SOURCEBOT_LOG_FORMAT", "json")
            .env(
                "SOURCEBOT_WORKSPACE_CACHE_TTL",
                format!("{}s", CACHE_TTL.as_secs()),
            );
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let served = OAuthServe {
            served: Served::spawn(cmd, addr, dir, http),
        };
        let (_, ready) = served
            .readyz_until("/readyz", WAIT, |reply| reply.status == 200)
            .await;
        assert!(
            ready,
            "/readyz never answered 200; logs:\n{}",
            served.logs()
        );
        served
    }

    /// The answer to `request` as a [`Reply`] (status 0 when none came).
    async fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        let started = Instant::now();
        Reply::from(
            request.timeout(Duration::from_secs(20)).send().await,
            started,
        )
        .await
    }

    /// `POST /v1/check?verify=false` with a short answer and the right token.
    async fn check(&self) -> Reply {
        self.send(
            self.http
                .post(self.url("/v1/check?verify=false"))
                .header("content-type", "text/markdown")
                .bearer_auth(API_TOKEN)
                .body("Deploys freeze on Fridays [1].\n\n[1]: https://example.com/freeze"),
        )
        .await
    }

    /// `POST /v1/answers?verify=false`: the sources of a short answer, posted in
    /// `team`'s workspace in thread `thread_ts` of [`CHANNEL`].
    async fn answers(&self, team: &str, thread_ts: &str) -> Reply {
        self.send(
            self.http
                .post(self.url("/v1/answers?verify=false"))
                .bearer_auth(API_TOKEN)
                .header("content-type", "application/json")
                .body(
                    json!({
                        "team_id": team,
                        "channel": CHANNEL,
                        "thread_ts": thread_ts,
                        "text": "Deploys freeze on Fridays.",
                    })
                    .to_string(),
                ),
        )
        .await
    }

    /// `GET /slack/install`: the state (from the Location) and the state cookie.
    async fn begin_install(&self) -> (String, String) {
        let reply = self.get("/slack/install").await;
        assert_eq!(reply.status, 302, "/slack/install: {}", reply.text);
        let location = reply.header("location").unwrap_or_default();
        let location = url::Url::parse(location).expect("the Location is a URL");
        let query: HashMap<String, String> = location.query_pairs().into_owned().collect();
        // `sourcebot_oauth_state=NONCE; Path=/slack; …`: the pair is sent back.
        let cookie = reply
            .header("set-cookie")
            .and_then(|c| c.split(';').next())
            .filter(|pair| pair.contains('='))
            .expect("the state cookie")
            .to_string();
        (query["state"].clone(), cookie)
    }

    /// Slack's redirect back to `/slack/oauth_redirect` with `code`, `state` and the
    /// state cookie.
    async fn finish_install(&self, code: &str, state: &str, cookie: &str) -> Reply {
        let query =
            serde_urlencoded::to_string([("code", code), ("state", state)]).expect("a query");
        self.send(
            self.http
                .get(self.url(&format!("/slack/oauth_redirect?{query}")))
                .header("cookie", cookie),
        )
        .await
    }

    /// The whole install flow for `team`, with the fake granting `code`: the redirect's
    /// reply.
    async fn install(&self, slack: &FakeSlack, team: &str, code: &str) -> Reply {
        let (state, cookie) = self.begin_install().await;
        slack.grant_oauth_code(
            code,
            OAuthGrant::workspace(team, &format!("http://{}/slack/oauth_redirect", self.addr)),
        );
        self.finish_install(code, &state, &cookie).await
    }

    /// A signed `app_mention` from `team` (its `team_id` and `authorizations` name it
    /// and its bot `UBOT{team}`), at `ts`.
    async fn mention(&self, team: &str, event_id: &str, ts: &str) -> Reply {
        let bot = format!("UBOT{team}");
        let mut event = app_mention_event(
            CHANNEL,
            "U1",
            &format!("<@{bot}> Deploys freeze on Fridays after 3 pm."),
            ts,
            None,
        );
        event["team"] = json!(team);
        let mut callback = event_callback(event_id, event);
        callback["team_id"] = json!(team);
        callback["authorizations"][0]["team_id"] = json!(team);
        callback["authorizations"][0]["user_id"] = json!(bot);
        let body = callback.to_string();
        let timestamp = unix_now().to_string();
        self.send(
            self.http
                .post(self.url("/slack/events"))
                .header("content-type", "application/json")
                .header("x-slack-request-timestamp", &timestamp)
                .header(
                    "x-slack-signature",
                    sign_request(SIGNING_SECRET, &timestamp, &body),
                )
                .body(body),
        )
        .await
    }

    /// `sourcebot_unserved_total{reason="database"}` from `/metrics` (0 when absent).
    async fn unserved_database(&self) -> f64 {
        let reply = self.get("/metrics").await;
        metric_value(
            &reply.text,
            "sourcebot_unserved_total",
            "reason=\"database\"",
        )
    }
}

/// The value of the sample of `name` whose labels contain `label`, summed over the
/// lines that match (0 when none does).
fn metric_value(exposition: &str, name: &str, label: &str) -> f64 {
    exposition
        .lines()
        .filter(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{') && rest.contains(label))
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The `chat.postMessage` calls made with `team`'s token (`xoxb-{team}-…`) in the
/// thread of `ts`.
fn answers_in(slack: &FakeSlack, team: &str, ts: &str) -> Vec<Call> {
    let prefix = format!("xoxb-{team}-");
    slack
        .calls_to("chat.postMessage")
        .into_iter()
        .filter(|call| {
            call.token
                .as_deref()
                .is_some_and(|token| token.starts_with(&prefix))
        })
        .filter(|call| call.str("thread_ts") == Some(ts))
        .collect()
}

/// Every `chat.postMessage` made with `team`'s token.
fn posts_with_token_of(slack: &FakeSlack, team: &str) -> Vec<Call> {
    let prefix = format!("xoxb-{team}-");
    slack
        .calls_to("chat.postMessage")
        .into_iter()
        .filter(|call| {
            call.token
                .as_deref()
                .is_some_and(|token| token.starts_with(&prefix))
        })
        .collect()
}

/// Waits up to [`WAIT`] for an answer with `team`'s token in the thread of `ts`.
async fn answered(slack: &FakeSlack, team: &str, ts: &str) -> bool {
    eventually(WAIT, || async {
        (!answers_in(slack, team, ts).is_empty()).then_some(())
    })
    .await
    .is_some()
}

/// What the fake recorded, for failure messages.
fn calls_summary(slack: &FakeSlack) -> String {
    slack
        .calls()
        .iter()
        .map(|c| {
            format!(
                "{} token={:?} channel={:?} thread_ts={:?}",
                c.method,
                c.token
                    .as_deref()
                    .map(|t| t.split('-').take(2).collect::<Vec<_>>().join("-")),
                c.str("channel"),
                c.str("thread_ts")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rows of `installations` for workspace `team`.
async fn installation_rows(pool: &sqlx::PgPool, team: &str) -> i64 {
    sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM installations WHERE team_id = $1")
        .bind(team)
        .fetch_one(pool)
        .await
        .expect("the installations table can be read")
}

/// Asserts a mention was acknowledged as Slack requires.
fn assert_acknowledged(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 200, "{what}: {}", reply.text);
    assert!(
        reply.took < ACK_LIMIT,
        "{what}: acknowledged after {:?}",
        reply.took
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stops_and_restarts_on_its_port_with_its_data() {
    let Some(mut server) = PostgresServer::start().await else {
        eprintln!("NOTICE: PostgreSQL is not installed; skipping the stop/restart test");
        return;
    };
    let port = server.port();
    let pool = server.connect().await.expect("connect");
    sqlx::query("CREATE TABLE kept (v TEXT)")
        .execute(&pool)
        .await
        .expect("create");
    sqlx::query("INSERT INTO kept VALUES ('before the outage')")
        .execute(&pool)
        .await
        .expect("insert");
    pool.close().await;

    let stopped = Instant::now();
    server.stop();
    assert!(
        stopped.elapsed() < Duration::from_secs(10),
        "stop took {:?}",
        stopped.elapsed()
    );
    assert!(!server.is_running());
    assert!(
        !server.accepts_connections().await,
        "a stopped server accepts connections"
    );
    assert!(server.connect().await.is_err(), "connect while stopped");
    server.stop(); // stopping twice is harmless

    server.restart().await;
    assert!(server.is_running());
    assert_eq!(server.port(), port, "the same port");
    let pool = server.connect().await.expect("connect after the restart");
    let kept: Vec<String> = sqlx::query_scalar("SELECT v FROM kept")
        .fetch_all(&pool)
        .await
        .expect("select");
    assert_eq!(kept, vec!["before the outage".to_string()]);
    pool.close().await;

    // And once more, to be sure a restarted server stops and starts again.
    server.restart().await;
    let pool = server
        .connect()
        .await
        .expect("connect after a second restart");
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM kept")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(count, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_stopped_and_restarted_keeps_cached_workspaces_served() {
    let Some(mut postgres) = PostgresServer::start().await else {
        eprintln!("NOTICE: PostgreSQL is not installed; skipping the database outage test");
        return;
    };
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let bot = OAuthServe::start(&slack, &postgres.url()).await;

    // Two workspaces install the app through serve's own OAuth routes.
    for (team, code) in [(T1, "code-t1"), (T2, "code-t2")] {
        let page = bot.install(&slack, team, code).await;
        assert_eq!(page.status, 200, "installing {team}: {}", page.text);
        assert!(
            page.text.contains(team),
            "installed in {team}: {}",
            page.text
        );
    }
    let pool = postgres
        .connect()
        .await
        .expect("connect to the test postgres");
    for team in [T1, T2] {
        assert_eq!(installation_rows(&pool, team).await, 1, "{team} stored");
    }
    pool.close().await;

    // T1 is resolved (and cached) by a first mention, which is answered.
    let ts1 = "1700000100.000100";
    let ack = bot.mention(T1, "Ev-db-1", ts1).await;
    assert_acknowledged(&ack, "T1's first mention");
    assert!(
        answered(&slack, T1, ts1).await,
        "T1's first mention was not answered with T1's token; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );

    assert_eq!(bot.unserved_database().await, 0.0, "nothing unserved yet");

    // The database goes away; the cache goes stale.
    postgres.stop();
    tokio::time::sleep(CACHE_TTL + Duration::from_millis(300)).await;

    // T1, resolved recently: acknowledged and still answered from the cache.
    let ts1b = "1700000200.000100";
    let ack = bot.mention(T1, "Ev-db-2", ts1b).await;
    assert_acknowledged(&ack, "T1's mention while the database is down");
    // T2, never resolved here: acknowledged, not answered, counted and logged.
    let ts2 = "1700000300.000100";
    let ack = bot.mention(T2, "Ev-db-3", ts2).await;
    assert_acknowledged(&ack, "T2's mention while the database is down");

    // The answer API needs no database.
    let check = bot.check().await;
    assert_eq!(
        check.status, 200,
        "/v1/check while the database is down: {}",
        check.text
    );

    assert!(
        answered(&slack, T1, ts1b).await,
        "T1 (cached) was not answered while the database is down; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    let counted = eventually(WAIT, || async {
        (bot.unserved_database().await >= 1.0).then_some(())
    })
    .await;
    assert!(
        counted.is_some(),
        "sourcebot_unserved_total{{reason=\"database\"}} never counted T2's mention; /metrics:\n{}\nlogs:\n{}",
        bot.get("/metrics").await.text,
        bot.logs()
    );
    let warned = eventually(WAIT, || async {
        bot.json_logs().into_iter().find(|line| {
            let text = line.to_string().to_ascii_lowercase();
            log_level(line) == "WARN"
                && text.contains("installation")
                && text.contains("cannot be read")
                && text.contains(&T2.to_ascii_lowercase())
        })
    })
    .await;
    assert!(
        warned.is_some(),
        "no WARN log line says T2's installation cannot be read; logs:\n{}",
        bot.logs()
    );
    // A moment more for a late answer, then: nothing was posted with T2's token.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        posts_with_token_of(&slack, T2).is_empty(),
        "T2 was answered although its installation cannot be read; calls:\n{}",
        calls_summary(&slack)
    );

    // The answer API: posting in T1 (read lately) works; in T2 it cannot know the
    // token, and says the database is unavailable.
    let posted = bot.answers(T1, "1700000300.000100").await;
    assert_eq!(
        posted.status, 200,
        "/v1/answers in T1 while the database is down: {}",
        posted.text
    );
    let refused = bot.answers(T2, "1700000300.000200").await;
    assert_eq!(refused.status, 503, "{}", refused.text);
    assert_eq!(
        refused.json["error"]["code"], "unavailable",
        "{}",
        refused.text
    );
    assert!(
        refused.json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("installation")),
        "{}",
        refused.text
    );

    // /readyz: still 200, the database down with its error and what it affects.
    let readyz = bot.get("/readyz").await;
    assert_eq!(
        readyz.status, 200,
        "/readyz while the database is down: {}",
        readyz.text
    );
    assert_readyz_shape(&readyz, "all");
    // Inside a probe's own timeout (2 s in deploy/kubernetes.yaml), however long the
    // pool would wait for a connection.
    assert!(
        readyz.took < Duration::from_millis(1500),
        "/readyz took {:?} while the database is down",
        readyz.took
    );
    let body = &readyz.json;
    assert!(
        degraded(body, "database"),
        "degraded names the database: {body}"
    );
    assert_eq!(body["database"]["status"], "down", "{body}");
    assert!(
        body["database"]["last_error"]
            .as_str()
            .is_some_and(|e| !e.trim().is_empty()),
        "database.last_error: {body}"
    );
    assert!(
        body["database"]["affects"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "database.affects: {body}"
    );
    let api = bot.get("/readyz/api").await;
    assert_eq!(
        api.status, 200,
        "/readyz/api while the database is down: {}",
        api.text
    );

    // An install during the outage: an error page, nothing stored.
    let failed = bot.install(&slack, T3, "code-t3-outage").await;
    assert!(
        failed.status >= 500,
        "installing T3 while the database is down: {} {}",
        failed.status,
        failed.text
    );

    // The database comes back.
    postgres.restart().await;
    let (readyz, held) = bot
        .readyz_until("/readyz", WAIT, |r| {
            r.status == 200
                && r.json["database"]["status"] == "ok"
                && !degraded(&r.json, "database")
        })
        .await;
    assert!(
        held,
        "/readyz did not say the database is back: {} {}",
        readyz.status, readyz.text
    );

    let pool = postgres.connect().await.expect("connect after the restart");
    assert_eq!(
        installation_rows(&pool, T3).await,
        0,
        "the install that failed left a row for T3"
    );
    let ts2b = "1700000400.000100";
    let ack = bot.mention(T2, "Ev-db-4", ts2b).await;
    assert_acknowledged(&ack, "T2's mention after the restart");
    assert!(
        answered(&slack, T2, ts2b).await,
        "T2 was not answered once the database was back; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    // Installing T3 again works.
    let page = bot.install(&slack, T3, "code-t3-again").await;
    assert_eq!(page.status, 200, "installing T3 again: {}", page.text);
    assert_eq!(installation_rows(&pool, T3).await, 1, "T3 stored");
    pool.close().await;
    bot.assert_no_panic();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_killed_and_restarted_degrades_shared_state_only() {
    let Some(mut redis) = RedisServer::start().await else {
        eprintln!("NOTICE: redis-server is not installed; skipping the Redis outage test");
        return;
    };
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let bot = Served::start(&slack, &[("SOURCEBOT_REDIS_URL", &redis.url())]).await;
    let (ready, held) = bot
        .readyz_until("/readyz", WAIT, |r| {
            r.status == 200 && r.json["shared_state"]["status"] == "ok"
        })
        .await;
    assert!(held, "/readyz never ready with Redis ok: {}", ready.text);

    let mention = |ts: &str| {
        app_mention_event(
            CHANNEL,
            "U1",
            &format!("<@{BOT_USER_ID}> Deploys freeze on Fridays after 3 pm."),
            ts,
            None,
        )
    };
    let bot_answers = |ts: &str| {
        slack
            .calls_to("chat.postMessage")
            .into_iter()
            .filter(|call| call.str("thread_ts") == Some(ts))
            .count()
    };
    let ts0 = "1700000500.000100";
    let ack = bot.event("Ev-redis-0", mention(ts0)).await;
    assert_acknowledged(&ack, "a mention with Redis up");
    assert!(
        eventually(WAIT, || async { (bot_answers(ts0) > 0).then_some(()) })
            .await
            .is_some(),
        "not answered with Redis up; logs:\n{}",
        bot.logs()
    );

    redis.kill();
    let ts1 = "1700000600.000100";
    let ack = bot.event("Ev-redis-1", mention(ts1)).await;
    assert_acknowledged(&ack, "a mention with Redis down");
    assert!(
        eventually(WAIT, || async { (bot_answers(ts1) > 0).then_some(()) })
            .await
            .is_some(),
        "not answered with Redis down; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    let check = bot
        .check("?verify=false", "Deploys freeze on Fridays.")
        .await;
    assert_eq!(
        check.status, 200,
        "/v1/check with Redis down: {}",
        check.text
    );
    let (readyz, held) = bot
        .readyz_until("/readyz", WAIT, |r| {
            r.status == 200
                && degraded(&r.json, "shared_state")
                && r.json["shared_state"]["status"] == "down"
        })
        .await;
    assert!(
        held,
        "/readyz with Redis down: 200, shared_state down and degraded: {} {}",
        readyz.status, readyz.text
    );
    assert_readyz_shape(&readyz, "all");

    redis.restart().await;
    let (readyz, held) = bot
        .readyz_until("/readyz", WAIT, |r| {
            r.status == 200
                && r.json["shared_state"]["status"] == "ok"
                && !degraded(&r.json, "shared_state")
        })
        .await;
    assert!(
        held,
        "/readyz after Redis came back: {} {}",
        readyz.status, readyz.text
    );
    bot.assert_no_panic();
}
