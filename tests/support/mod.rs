//! Hermetic hostile servers for the integration tests and benchmarks: an HTTP/1.1
//! server whose routes misbehave on purpose (`hostile`), the same server over TLS with a
//! self-signed certificate (`tls`), a fake DNS server (`dns`), and a fake Slack Web API
//! with Socket Mode (`slack`). Everything listens on 127.0.0.x addresses started by the
//! test itself and stops when dropped. Each test target uses only part of this, hence
//! the `allow` below.
#![allow(dead_code, unused_imports)]

pub mod bot;
pub mod cli;
pub mod cloud_docs;
pub mod cloud_fakes;
pub mod dns;
pub mod hostile;
pub mod llm;
pub mod office;
pub mod outage;
pub mod pdf;
pub mod pipeline;
pub mod postgres;
pub mod product_docs;
pub mod product_reads;
pub mod redis;
pub mod serve;
pub mod slack;
pub mod tls;

pub use dns::{dead_dns_addr, DnsAnswer, FakeDns};
pub use hostile::{Action, Body, HostileServer, RequestInfo, Route};
pub use slack::{Access, Call, Failure, FakeSlack, Message};

/// The next loopback address `127.{block}.x.y` not yet handed out by this test binary:
/// each test file takes its own `block`, so its servers never share an address with
/// another file's, and every server gets one of its own.
pub fn next_ip(block: u8) -> std::net::IpAddr {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(
        127,
        block,
        (n >> 8) as u8,
        (n & 0xff) as u8,
    ))
}
