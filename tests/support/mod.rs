//! Hermetic hostile servers for the integration tests and benchmarks: an HTTP/1.1
//! server whose routes misbehave on purpose (`hostile`), the same server over TLS with a
//! self-signed certificate (`tls`), a fake DNS server (`dns`), and a fake Slack Web API
//! with Socket Mode (`slack`). Everything listens on 127.0.0.x addresses started by the
//! test itself and stops when dropped. Each test target uses only part of this, hence
//! the `allow` below.
#![allow(dead_code, unused_imports)]

pub mod cli;
pub mod dns;
pub mod hostile;
pub mod serve;
pub mod slack;
pub mod tls;

pub use dns::{dead_dns_addr, DnsAnswer, FakeDns};
pub use hostile::{Action, Body, HostileServer, RequestInfo, Route};
pub use slack::{Access, Call, Failure, FakeSlack, Message};
