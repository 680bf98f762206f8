//! Name lookup for the verifier, and the resolver that hands the HTTP client only
//! vetted addresses.
//!
//! A [`NameLookup`] turns a host name into addresses and says plainly why it could not:
//! the name does not exist (NXDOMAIN, or no address records: the link is broken) or the
//! resolver could not be asked (the machine is offline: the link is unreachable).
//! [`DnsLookup`] asks DNS through hickory; [`StaticLookup`] answers from a fixed table,
//! for tests and benchmarks. [`GuardedResolver`] sits between the HTTP client and a
//! lookup: it refuses reserved and local names, drops every address the guard forbids,
//! and fails with a [`ResolveFailure`] that the prober finds in the error chain. The
//! client connects to exactly the addresses it returns: there is no second lookup a
//! rebinding DNS server could answer differently.

use super::guard::{classify_name, Forbidden, GuardPolicy, NameClass};
use futures_util::future::BoxFuture;
use hickory_resolver::config::{LookupIpStrategy, NameServerConfig, ResolverConfig, ResolverOpts};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::NetError;
use hickory_resolver::TokioResolver;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Why a name gave no address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// DNS answered that the name does not exist, or has no address records.
    #[error("{0}")]
    NotFound(String),
    /// DNS could not be asked or did not answer: says nothing about the name.
    #[error("{0}")]
    Unavailable(String),
}

/// Turns a host name into IP addresses.
pub trait NameLookup: Send + Sync + 'static {
    /// The addresses of `host` (a lower-case name without a trailing dot).
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupError>>;
}

/// The name every NXDOMAIN is compared with by default: if DNS says even this name does
/// not exist, DNS is lying (a sandbox, a captive portal), not the link.
pub const DEFAULT_CANARY_NAME: &str = "slack.com";

/// How long the answer to "does the canary resolve?" is trusted.
const CANARY_TTL: Duration = Duration::from_secs(60);

/// DNS through hickory, configured from the system (`/etc/resolv.conf`) or given
/// name servers.
pub struct DnsLookup {
    resolver: TokioResolver,
    query_timeout: Duration,
    canary: Option<String>,
    canary_seen: Mutex<Option<(Instant, bool)>>,
}

impl DnsLookup {
    /// The system's resolver configuration, each query bounded by `query_timeout`.
    pub fn system(query_timeout: Duration) -> Result<DnsLookup, LookupError> {
        let mut builder = TokioResolver::builder_tokio().map_err(|e| {
            LookupError::Unavailable(format!("cannot read the system's DNS settings: {e}"))
        })?;
        tune(builder.options_mut(), query_timeout);
        Self::finish(builder.build(), query_timeout)
    }

    /// Ask exactly these name servers (UDP, then TCP on truncation).
    pub fn with_nameservers(
        servers: &[SocketAddr],
        query_timeout: Duration,
    ) -> Result<DnsLookup, LookupError> {
        let configs = servers
            .iter()
            .map(|server| {
                let mut config = NameServerConfig::udp_and_tcp(server.ip());
                for connection in &mut config.connections {
                    connection.port = server.port();
                }
                config
            })
            .collect();
        let mut builder = TokioResolver::builder_with_config(
            ResolverConfig::from_name_servers(configs),
            TokioRuntimeProvider::default(),
        );
        tune(builder.options_mut(), query_timeout);
        Self::finish(builder.build(), query_timeout)
    }

    fn finish(
        built: Result<TokioResolver, NetError>,
        query_timeout: Duration,
    ) -> Result<DnsLookup, LookupError> {
        let resolver = built
            .map_err(|e| LookupError::Unavailable(format!("cannot start the DNS resolver: {e}")))?;
        Ok(DnsLookup {
            resolver,
            query_timeout,
            canary: Some(DEFAULT_CANARY_NAME.to_string()),
            canary_seen: Mutex::new(None),
        })
    }

    /// Compare NXDOMAIN answers with this name instead of [`DEFAULT_CANARY_NAME`]
    /// (`None`: trust every NXDOMAIN).
    pub fn with_canary(mut self, canary: Option<String>) -> DnsLookup {
        self.canary = canary;
        self
    }

    /// One lookup, bounded as a whole (A and AAAA, every server, every retry) by the
    /// query timeout: a silent resolver is reported as such before the probe's own
    /// deadline calls the link slow.
    async fn ask(&self, host: &str) -> Result<Vec<IpAddr>, LookupError> {
        // A final dot keeps search domains out of it: the link names a public host.
        let fqdn = format!("{host}.");
        let answer =
            tokio::time::timeout(self.query_timeout, self.resolver.lookup_ip(fqdn.as_str()))
                .await
                .map_err(|_| {
                    LookupError::Unavailable(format!(
                        "name lookup failed: no DNS server answered within {} ms",
                        self.query_timeout.as_millis()
                    ))
                })?;
        match answer {
            Ok(found) => {
                let addresses: Vec<IpAddr> = found.iter().collect();
                if addresses.is_empty() {
                    Err(LookupError::NotFound(format!("{host} has no address")))
                } else {
                    Ok(addresses)
                }
            }
            Err(error) if error.is_nx_domain() => Err(LookupError::NotFound(format!(
                "{host} does not exist (DNS: NXDOMAIN)"
            ))),
            Err(error) if error.is_no_records_found() => {
                Err(LookupError::NotFound(format!("{host} has no address")))
            }
            Err(error) => Err(LookupError::Unavailable(format!(
                "name lookup failed: {}",
                describe_net_error(&error)
            ))),
        }
    }

    /// Whether the canary name resolves, asked at most once a minute.
    async fn canary_resolves(&self, canary: &str) -> bool {
        if let Ok(seen) = self.canary_seen.lock() {
            if let Some((at, resolves)) = *seen {
                if at.elapsed() < CANARY_TTL {
                    return resolves;
                }
            }
        }
        let resolves = !matches!(self.ask(canary).await, Err(LookupError::NotFound(_)));
        if let Ok(mut seen) = self.canary_seen.lock() {
            *seen = Some((Instant::now(), resolves));
        }
        resolves
    }
}

fn tune(options: &mut ResolverOpts, query_timeout: Duration) {
    // The probe's own deadline bounds the whole check; one attempt per server keeps a
    // dead resolver from eating it, and leaves time to call it unreachable.
    options.timeout = query_timeout;
    options.attempts = 1;
    options.ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
}

fn describe_net_error(error: &NetError) -> String {
    match error {
        NetError::Timeout => "the DNS server did not answer".to_string(),
        NetError::Io(io) => format!("cannot reach the DNS server ({io})"),
        NetError::NoConnections => "no DNS server is configured or reachable".to_string(),
        other => other.to_string(),
    }
}

impl NameLookup for DnsLookup {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupError>> {
        Box::pin(async move {
            let answer = self.ask(host).await;
            match (&answer, &self.canary) {
                (Err(LookupError::NotFound(_)), Some(canary)) if canary != host => {
                    if self.canary_resolves(canary).await {
                        answer
                    } else {
                        Err(LookupError::Unavailable(format!(
                            "this machine's DNS says no name exists, not even {canary}, so it cannot tell whether this one does"
                        )))
                    }
                }
                _ => answer,
            }
        })
    }
}

/// A fixed table of names, for tests and benchmarks. Names not in it do not exist.
#[derive(Debug, Clone, Default)]
pub struct StaticLookup {
    entries: HashMap<String, Result<Vec<IpAddr>, LookupError>>,
}

impl StaticLookup {
    /// An empty table: every name is NXDOMAIN.
    pub fn new() -> StaticLookup {
        StaticLookup::default()
    }

    /// `host` resolves to `addresses`.
    pub fn with(mut self, host: &str, addresses: Vec<IpAddr>) -> StaticLookup {
        self.entries
            .insert(host.to_ascii_lowercase(), Ok(addresses));
        self
    }

    /// Looking `host` up fails with `error`.
    pub fn failing(mut self, host: &str, error: LookupError) -> StaticLookup {
        self.entries.insert(host.to_ascii_lowercase(), Err(error));
        self
    }
}

impl NameLookup for StaticLookup {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupError>> {
        let answer = match self.entries.get(host) {
            Some(answer) => answer.clone(),
            None => Err(LookupError::NotFound(format!(
                "{host} does not exist (DNS: NXDOMAIN)"
            ))),
        };
        Box::pin(async move { answer })
    }
}

/// Why the guarded resolver gave the HTTP client no address. The prober finds it in
/// the client's error chain and turns it into a verdict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveFailure {
    /// The name does not exist.
    #[error("{0}")]
    NotFound(String),
    /// DNS could not be asked.
    #[error("{0}")]
    Unavailable(String),
    /// Every address the name has is forbidden.
    #[error("{host} resolves only to forbidden addresses: {first}")]
    Forbidden {
        /// The name looked up.
        host: String,
        /// The first address refused, and why.
        first: Forbidden,
    },
    /// A reserved name (`.invalid`, `.test`, `.example`).
    #[error("{0} is a reserved name that never resolves")]
    Reserved(String),
    /// A name for this machine or the local network.
    #[error("{0} names this machine or the local network")]
    Local(String),
    /// A Tor onion name.
    #[error("{0} is a Tor onion address, not reachable through DNS")]
    Onion(String),
}

/// The HTTP client's resolver: looks names up and keeps only addresses the guard
/// permits.
#[derive(Clone)]
pub struct GuardedResolver {
    lookup: Arc<dyn NameLookup>,
    policy: Arc<GuardPolicy>,
}

impl GuardedResolver {
    /// A resolver over `lookup` that enforces `policy`.
    pub fn new(lookup: Arc<dyn NameLookup>, policy: Arc<GuardPolicy>) -> GuardedResolver {
        GuardedResolver { lookup, policy }
    }

    /// The permitted addresses of `host`, or why there are none.
    pub async fn resolve_host(&self, host: &str) -> Result<Vec<IpAddr>, ResolveFailure> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        match classify_name(&host) {
            NameClass::Reserved => return Err(ResolveFailure::Reserved(host)),
            NameClass::Local => return Err(ResolveFailure::Local(host)),
            NameClass::Onion => return Err(ResolveFailure::Onion(host)),
            NameClass::Lookup => {}
        }
        let found = self.lookup.lookup(&host).await.map_err(|e| match e {
            LookupError::NotFound(reason) => ResolveFailure::NotFound(reason),
            LookupError::Unavailable(reason) => ResolveFailure::Unavailable(reason),
        })?;
        vet(&host, found, &self.policy)
    }
}

/// Keeps the addresses `policy` permits for a looked-up name; none left is a failure
/// naming the first refused. Named hosts are judged by IP alone (the resolver does not
/// know the port), so an allowed socket permits its IP for names.
fn vet(
    host: &str,
    found: Vec<IpAddr>,
    policy: &GuardPolicy,
) -> Result<Vec<IpAddr>, ResolveFailure> {
    let mut permitted = Vec::with_capacity(found.len());
    let mut first_refusal = None;
    for ip in found {
        let allowed_socket = policy.allowed_sockets.iter().any(|s| s.ip() == ip);
        match policy.permits(SocketAddr::new(ip, 0)) {
            Ok(()) => permitted.push(ip),
            Err(_) if allowed_socket => permitted.push(ip),
            Err(refusal) => {
                first_refusal.get_or_insert(refusal);
            }
        }
    }
    match (permitted.is_empty(), first_refusal) {
        (false, _) => Ok(permitted),
        (true, Some(first)) => Err(ResolveFailure::Forbidden {
            host: host.to_string(),
            first,
        }),
        (true, None) => Err(ResolveFailure::NotFound(format!("{host} has no address"))),
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let resolver = self.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addresses = resolver.resolve_host(&host).await?;
            let sockets: reqwest::dns::Addrs =
                Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(sockets)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ip(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(a, b, c, d))
    }

    fn resolver(lookup: StaticLookup, policy: GuardPolicy) -> GuardedResolver {
        GuardedResolver::new(Arc::new(lookup), Arc::new(policy))
    }

    #[tokio::test]
    async fn keeps_only_permitted_addresses() {
        let lookup = StaticLookup::new()
            .with("mixed.com", vec![ip(10, 0, 0, 1), ip(93, 184, 216, 34)])
            .with("private.com", vec![ip(192, 168, 1, 1), ip(127, 0, 0, 1)]);
        let guarded = resolver(lookup, GuardPolicy::default());
        assert_eq!(
            guarded.resolve_host("mixed.com").await,
            Ok(vec![ip(93, 184, 216, 34)])
        );
        match guarded.resolve_host("private.com").await {
            Err(ResolveFailure::Forbidden { host, first }) => {
                assert_eq!(host, "private.com");
                assert_eq!(first.address, ip(192, 168, 1, 1));
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn names_are_judged_before_any_lookup() {
        // The table would answer with a public address: the name alone must decide.
        let public = vec![ip(93, 184, 216, 34)];
        let lookup = StaticLookup::new()
            .with("localhost", public.clone())
            .with("a.localhost", public.clone())
            .with("x.invalid", public.clone())
            .with("abc.onion", public);
        let guarded = resolver(lookup, GuardPolicy::default());
        for (host, expected) in [
            ("localhost", ResolveFailure::Local("localhost".into())),
            ("LocalHost.", ResolveFailure::Local("localhost".into())),
            ("a.localhost", ResolveFailure::Local("a.localhost".into())),
            ("x.invalid", ResolveFailure::Reserved("x.invalid".into())),
            ("abc.onion", ResolveFailure::Onion("abc.onion".into())),
        ] {
            assert_eq!(guarded.resolve_host(host).await, Err(expected), "{host}");
        }
    }

    #[tokio::test]
    async fn lookup_failures_keep_their_meaning() {
        let lookup = StaticLookup::new().failing(
            "offline.com",
            LookupError::Unavailable("cannot reach the DNS server".into()),
        );
        let guarded = resolver(lookup, GuardPolicy::default());
        assert!(matches!(
            guarded.resolve_host("offline.com").await,
            Err(ResolveFailure::Unavailable(_))
        ));
        assert!(matches!(
            guarded.resolve_host("nowhere.com").await,
            Err(ResolveFailure::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn private_addresses_pass_only_when_allowed() {
        let lookup = StaticLookup::new().with("lab.com", vec![ip(127, 0, 0, 1)]);
        let allowed = GuardPolicy {
            allow_private: true,
            allowed_sockets: Vec::new(),
        };
        assert_eq!(
            resolver(lookup.clone(), allowed)
                .resolve_host("lab.com")
                .await,
            Ok(vec![ip(127, 0, 0, 1)])
        );
        let one_socket = GuardPolicy {
            allow_private: false,
            allowed_sockets: vec![SocketAddr::new(ip(127, 0, 0, 1), 8080)],
        };
        assert_eq!(
            resolver(lookup.clone(), one_socket)
                .resolve_host("lab.com")
                .await,
            Ok(vec![ip(127, 0, 0, 1)])
        );
        assert!(resolver(lookup, GuardPolicy::default())
            .resolve_host("lab.com")
            .await
            .is_err());
    }
}
