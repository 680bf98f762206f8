//! A fake DNS server for resolver tests: it answers UDP queries on 127.0.0.1 from a
//! fixed table (A and AAAA records, NXDOMAIN, SERVFAIL, or silence), records the names
//! asked, and stops when dropped. [`dead_dns_addr`] gives an address where no resolver
//! listens. The DNS wire format is handled by hand: one question per query, EDNS OPT
//! records ignored, answers without compression beyond a pointer to the question name.

use std::collections::HashMap;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket as StdUdpSocket};
use std::sync::{Arc, Mutex};

use tokio::net::UdpSocket;
use tokio::task::JoinHandle;

/// Query type of an IPv4 address record.
pub const QTYPE_A: u16 = 1;
/// Query type of an IPv6 address record.
pub const QTYPE_AAAA: u16 = 28;
/// Query type asking for every record.
pub const QTYPE_ANY: u16 = 255;
/// Response code: no error.
pub const RCODE_NOERROR: u8 = 0;
/// Response code: the query could not be parsed.
pub const RCODE_FORMERR: u8 = 1;
/// Response code: server failure.
pub const RCODE_SERVFAIL: u8 = 2;
/// Response code: the name does not exist.
pub const RCODE_NXDOMAIN: u8 = 3;
/// Response code: the opcode is not supported.
pub const RCODE_NOTIMP: u8 = 4;
/// TTL of every record served.
pub const TTL: u32 = 60;

/// What the server says about one name. A name may have several entries (e.g. one `A`
/// and one `Aaaa`); `Silent` wins over `NxDomain`, which wins over `ServFail`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DnsAnswer {
    /// These IPv4 addresses for `A` (and `ANY`) questions.
    A(Vec<Ipv4Addr>),
    /// These IPv6 addresses for `AAAA` (and `ANY`) questions.
    Aaaa(Vec<Ipv6Addr>),
    /// Rcode 3, whatever the question type.
    NxDomain,
    /// Rcode 2, whatever the question type.
    ServFail,
    /// Never reply.
    Silent,
}

type Table = HashMap<String, Vec<DnsAnswer>>;

/// A UDP DNS server on 127.0.0.1:0 answering from a fixed table. Names not in the table
/// get NXDOMAIN; a name in it without a record of the asked type gets NOERROR with no
/// answers. Dropping it stops the server.
pub struct FakeDns {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<(String, u16)>>>,
    task: JoinHandle<()>,
}

impl fmt::Debug for FakeDns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeDns")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl FakeDns {
    /// Starts the server with these records (names matched case-insensitively, a
    /// trailing dot ignored).
    pub async fn start(records: Vec<(&str, DnsAnswer)>) -> FakeDns {
        let mut table = Table::new();
        for (name, answer) in records {
            table.entry(normalize(name)).or_default().push(answer);
        }
        let socket = UdpSocket::bind("127.0.0.1:0")
            .await
            .expect("fake dns: bind 127.0.0.1:0");
        let addr = socket.local_addr().expect("fake dns: local_addr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let task_log = Arc::clone(&log);
        let task = tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            loop {
                let Ok((n, peer)) = socket.recv_from(&mut buf).await else {
                    continue;
                };
                if let Some(reply) = answer(&buf[..n], &table, &task_log) {
                    let _ = socket.send_to(&reply, peer).await;
                }
            }
        });
        FakeDns { addr, log, task }
    }

    /// The UDP address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The names asked so far, in order (lower-case, no trailing dot).
    pub fn queries(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The names asked so far with their query types, in order.
    pub fn queries_typed(&self) -> Vec<(String, u16)> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for FakeDns {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A 127.0.0.1 UDP address on which nothing listens (a socket was bound there, its port
/// noted, and the socket dropped): a resolver pointed here gets no answer.
pub fn dead_dns_addr() -> SocketAddr {
    let socket = StdUdpSocket::bind("127.0.0.1:0").expect("dead dns: bind");
    socket.local_addr().expect("dead dns: local_addr")
}

fn normalize(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The reply to one query packet, or `None` to stay silent.
fn answer(query: &[u8], table: &Table, log: &Mutex<Vec<(String, u16)>>) -> Option<Vec<u8>> {
    if query.len() < 12 || query[2] & 0x80 != 0 {
        return None; // too short for a header, or itself a response
    }
    let id = [query[0], query[1]];
    let flags = u16::from_be_bytes([query[2], query[3]]);
    let qdcount = u16::from_be_bytes([query[4], query[5]]);
    let Some((name, qtype, question_end)) = parse_question(query).filter(|_| qdcount == 1) else {
        return Some(header(id, flags, RCODE_FORMERR, 0, 0));
    };
    log.lock().unwrap().push((name.clone(), qtype));
    let question = &query[12..question_end];
    if (flags >> 11) & 0xF != 0 {
        return Some(with_question(id, flags, RCODE_NOTIMP, question, &[]));
    }
    let Some(entries) = table.get(&name) else {
        return Some(with_question(id, flags, RCODE_NXDOMAIN, question, &[]));
    };
    if entries.contains(&DnsAnswer::Silent) {
        return None;
    }
    if entries.contains(&DnsAnswer::NxDomain) {
        return Some(with_question(id, flags, RCODE_NXDOMAIN, question, &[]));
    }
    if entries.contains(&DnsAnswer::ServFail) {
        return Some(with_question(id, flags, RCODE_SERVFAIL, question, &[]));
    }
    let mut records: Vec<(u16, Vec<u8>)> = Vec::new();
    for entry in entries {
        match entry {
            DnsAnswer::A(ips) if qtype == QTYPE_A || qtype == QTYPE_ANY => {
                records.extend(ips.iter().map(|ip| (QTYPE_A, ip.octets().to_vec())));
            }
            DnsAnswer::Aaaa(ips) if qtype == QTYPE_AAAA || qtype == QTYPE_ANY => {
                records.extend(ips.iter().map(|ip| (QTYPE_AAAA, ip.octets().to_vec())));
            }
            _ => {}
        }
    }
    Some(with_question(id, flags, RCODE_NOERROR, question, &records))
}

/// Parses the question at offset 12: (lower-case name, qtype, offset past QCLASS).
fn parse_question(packet: &[u8]) -> Option<(String, u16, usize)> {
    let mut pos = 12;
    let mut labels: Vec<String> = Vec::new();
    let mut name_len = 0usize;
    loop {
        let len = *packet.get(pos)? as usize;
        pos += 1;
        if len == 0 {
            break;
        }
        if len > 63 {
            return None; // compression pointers and extended labels have no place here
        }
        name_len += len + 1;
        if name_len > 255 {
            return None;
        }
        let label = packet.get(pos..pos + len)?;
        labels.push(String::from_utf8_lossy(label).to_ascii_lowercase());
        pos += len;
    }
    let fixed = packet.get(pos..pos + 4)?;
    let qtype = u16::from_be_bytes([fixed[0], fixed[1]]);
    Some((labels.join("."), qtype, pos + 4))
}

/// A header: QR=1, opcode and RD copied, AA=1, RA=1, this rcode and these counts.
fn header(id: [u8; 2], query_flags: u16, rcode: u8, qdcount: u16, ancount: u16) -> Vec<u8> {
    let flags: u16 = 0x8000
        | (query_flags & 0x7800)
        | 0x0400
        | (query_flags & 0x0100)
        | 0x0080
        | u16::from(rcode);
    let mut out = Vec::with_capacity(512);
    out.extend_from_slice(&id);
    out.extend_from_slice(&flags.to_be_bytes());
    out.extend_from_slice(&qdcount.to_be_bytes());
    out.extend_from_slice(&ancount.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // NSCOUNT, ARCOUNT: no OPT in answers
    out
}

/// A full reply: header, the question as asked, then `records` (type, rdata) for it.
fn with_question(
    id: [u8; 2],
    query_flags: u16,
    rcode: u8,
    question: &[u8],
    records: &[(u16, Vec<u8>)],
) -> Vec<u8> {
    let mut out = header(id, query_flags, rcode, 1, records.len() as u16);
    out.extend_from_slice(question);
    for (rtype, rdata) in records {
        out.extend_from_slice(&[0xC0, 12]); // pointer to the question name
        out.extend_from_slice(&rtype.to_be_bytes());
        out.extend_from_slice(&1u16.to_be_bytes()); // class IN
        out.extend_from_slice(&TTL.to_be_bytes());
        out.extend_from_slice(&(rdata.len() as u16).to_be_bytes());
        out.extend_from_slice(rdata);
    }
    out
}
