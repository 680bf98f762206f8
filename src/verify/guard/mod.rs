//! The guard between links written by strangers and the network. Before the verifier
//! fetches a cited URL it asks this module whether the URL may be fetched at all
//! (http or https, no credentials, no local or reserved name) and whether each address
//! it is about to connect to is globally reachable. Everything here is pure: no
//! lookups, no sockets. IP literals in any spelling the URL parser accepts (decimal,
//! hex, octal, short, fullwidth digits, bracketed IPv6) arrive here as addresses, and
//! IPv6 addresses that embed an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo)
//! are judged by every address they embed.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use url::{Host, Url};

/// Why an address is not globally reachable: the address, the IPv4 address it embeds
/// when that is what made it forbidden, and the range it falls in.
///
/// Displays as `127.0.0.1 is a loopback address (127.0.0.0/8)` or
/// `::ffff:10.0.0.1 embeds 10.0.0.1 (IPv4-mapped), a private address (10.0.0.0/8)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forbidden {
    /// The address that was judged.
    pub address: IpAddr,
    /// The embedded IPv4 address that is forbidden, with the embedding's name
    /// ("IPv4-mapped", "6to4", ...), when the range applies to it rather than to
    /// `address` itself.
    pub embedded: Option<(Ipv4Addr, &'static str)>,
    /// The forbidden range, in CIDR notation.
    pub range: &'static str,
    /// What the range is for: "loopback", "private", "link-local", "shared (CGNAT)", ...
    pub what: &'static str,
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let described = with_article(self.what);
        match self.embedded {
            Some((inner, form)) => write!(
                f,
                "{} embeds {inner} ({form}), {described} address ({})",
                self.address, self.range
            ),
            None => write!(
                f,
                "{} is {described} address ({})",
                self.address, self.range
            ),
        }
    }
}

impl std::error::Error for Forbidden {}

/// A range's name with its indefinite article: "a loopback", "an IETF protocol
/// assignment", `a "this network"`.
fn with_article(what: &str) -> String {
    if what.starts_with("this ") {
        return format!("a \"{what}\"");
    }
    let starts_with_vowel_sound = matches!(
        what.as_bytes().first(),
        Some(b'a' | b'e' | b'i' | b'o' | b'A' | b'E' | b'I' | b'O')
    ) || what.starts_with("unspecified")
        || what.starts_with("SRv6");
    let article = if starts_with_vowel_sound { "an" } else { "a" };
    format!("{article} {what}")
}

/// A block of addresses that is not globally reachable.
struct Block<Addr> {
    /// The first address of the block.
    network: Addr,
    /// How many leading bits every address in the block shares with `network`.
    prefix_len: u8,
    /// The block in CIDR notation, as shown to people.
    cidr: &'static str,
    /// What the block is for.
    what: &'static str,
}

/// A [`Block`], written compactly for the tables below.
const fn block<Addr>(
    network: Addr,
    prefix_len: u8,
    cidr: &'static str,
    what: &'static str,
) -> Block<Addr> {
    Block {
        network,
        prefix_len,
        cidr,
        what,
    }
}

impl Block<Ipv4Addr> {
    /// Whether `ip` is in the block.
    fn contains(&self, ip: Ipv4Addr) -> bool {
        let mask = u32::MAX
            .checked_shl(32 - u32::from(self.prefix_len))
            .unwrap_or(0);
        u32::from(ip) & mask == u32::from(self.network) & mask
    }
}

impl Block<Ipv6Addr> {
    /// Whether `ip` is in the block.
    fn contains(&self, ip: Ipv6Addr) -> bool {
        let mask = u128::MAX
            .checked_shl(128 - u32::from(self.prefix_len))
            .unwrap_or(0);
        u128::from(ip) & mask == u128::from(self.network) & mask
    }
}

/// IPv4 ranges that are not globally reachable (RFC 6890 and the IANA special-purpose
/// registry). More specific blocks come before the blocks that contain them.
const FORBIDDEN_V4: &[Block<Ipv4Addr>] = &[
    block(Ipv4Addr::new(0, 0, 0, 0), 8, "0.0.0.0/8", "this network"),
    block(Ipv4Addr::new(10, 0, 0, 0), 8, "10.0.0.0/8", "private"),
    block(
        Ipv4Addr::new(100, 64, 0, 0),
        10,
        "100.64.0.0/10",
        "shared (CGNAT)",
    ),
    block(Ipv4Addr::new(127, 0, 0, 0), 8, "127.0.0.0/8", "loopback"),
    block(
        Ipv4Addr::new(169, 254, 0, 0),
        16,
        "169.254.0.0/16",
        "link-local",
    ),
    block(Ipv4Addr::new(172, 16, 0, 0), 12, "172.16.0.0/12", "private"),
    block(
        Ipv4Addr::new(192, 0, 0, 0),
        24,
        "192.0.0.0/24",
        "IETF protocol assignment",
    ),
    block(
        Ipv4Addr::new(192, 0, 2, 0),
        24,
        "192.0.2.0/24",
        "documentation (TEST-NET-1)",
    ),
    block(
        Ipv4Addr::new(192, 88, 99, 0),
        24,
        "192.88.99.0/24",
        "6to4 relay anycast (deprecated)",
    ),
    block(
        Ipv4Addr::new(192, 168, 0, 0),
        16,
        "192.168.0.0/16",
        "private",
    ),
    block(
        Ipv4Addr::new(198, 18, 0, 0),
        15,
        "198.18.0.0/15",
        "benchmarking",
    ),
    block(
        Ipv4Addr::new(198, 51, 100, 0),
        24,
        "198.51.100.0/24",
        "documentation (TEST-NET-2)",
    ),
    block(
        Ipv4Addr::new(203, 0, 113, 0),
        24,
        "203.0.113.0/24",
        "documentation (TEST-NET-3)",
    ),
    block(Ipv4Addr::new(224, 0, 0, 0), 4, "224.0.0.0/4", "multicast"),
    block(Ipv4Addr::BROADCAST, 32, "255.255.255.255/32", "broadcast"),
    block(Ipv4Addr::new(240, 0, 0, 0), 4, "240.0.0.0/4", "reserved"),
];

/// IPv6 ranges that are not globally reachable, by name. Checked before embedded IPv4
/// addresses.
const FORBIDDEN_V6: &[Block<Ipv6Addr>] = &[
    block(Ipv6Addr::UNSPECIFIED, 128, "::/128", "unspecified"),
    block(Ipv6Addr::LOCALHOST, 128, "::1/128", "loopback"),
    block(
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "64:ff9b:1::/48",
        "local-use NAT64",
    ),
    block(
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "100::/64",
        "discard-only",
    ),
    block(
        Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 0),
        48,
        "2001:2::/48",
        "benchmarking",
    ),
    block(
        Ipv6Addr::new(0x2001, 0x10, 0, 0, 0, 0, 0, 0),
        28,
        "2001:10::/28",
        "ORCHID (deprecated)",
    ),
    block(
        Ipv6Addr::new(0x2001, 0x20, 0, 0, 0, 0, 0, 0),
        28,
        "2001:20::/28",
        "ORCHIDv2",
    ),
    block(
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "2001:db8::/32",
        "documentation",
    ),
    block(
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "3fff::/20",
        "documentation",
    ),
    block(
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "5f00::/16",
        "SRv6 SID",
    ),
    block(
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "fc00::/7",
        "unique local",
    ),
    block(
        Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0),
        10,
        "fe80::/10",
        "link-local",
    ),
    block(
        Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        "fec0::/10",
        "site-local (deprecated)",
    ),
    block(
        Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0),
        8,
        "ff00::/8",
        "multicast",
    ),
];

/// The IANA IPv6 address space outside global unicast (2000::/3) that is not named in
/// [`FORBIDDEN_V6`]: reserved by the IETF and never allocated. Checked after embedded
/// IPv4 addresses, since the mapped, compatible and NAT64 forms live in `0000::/8`.
const UNALLOCATED_V6: &[Block<Ipv6Addr>] = &[
    block(Ipv6Addr::UNSPECIFIED, 8, "::/8", "reserved (unallocated)"),
    block(
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        8,
        "100::/8",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0x200, 0, 0, 0, 0, 0, 0, 0),
        7,
        "200::/7",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0x400, 0, 0, 0, 0, 0, 0, 0),
        6,
        "400::/6",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0x800, 0, 0, 0, 0, 0, 0, 0),
        5,
        "800::/5",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0x1000, 0, 0, 0, 0, 0, 0, 0),
        4,
        "1000::/4",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0x4000, 0, 0, 0, 0, 0, 0, 0),
        3,
        "4000::/3",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0x6000, 0, 0, 0, 0, 0, 0, 0),
        3,
        "6000::/3",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0x8000, 0, 0, 0, 0, 0, 0, 0),
        3,
        "8000::/3",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0xa000, 0, 0, 0, 0, 0, 0, 0),
        3,
        "a000::/3",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0xc000, 0, 0, 0, 0, 0, 0, 0),
        3,
        "c000::/3",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0xe000, 0, 0, 0, 0, 0, 0, 0),
        4,
        "e000::/4",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0xf000, 0, 0, 0, 0, 0, 0, 0),
        5,
        "f000::/5",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0xf800, 0, 0, 0, 0, 0, 0, 0),
        6,
        "f800::/6",
        "reserved (unallocated)",
    ),
    block(
        Ipv6Addr::new(0xfe00, 0, 0, 0, 0, 0, 0, 0),
        9,
        "fe00::/9",
        "reserved (unallocated)",
    ),
];

/// The forbidden IPv4 block that holds `ip`, if any.
fn v4_block_of(ip: Ipv4Addr) -> Option<&'static Block<Ipv4Addr>> {
    FORBIDDEN_V4.iter().find(|b| b.contains(ip))
}

/// The first block in `blocks` that holds `ip`.
fn v6_block_of(
    blocks: &'static [Block<Ipv6Addr>],
    ip: Ipv6Addr,
) -> Option<&'static Block<Ipv6Addr>> {
    blocks.iter().find(|b| b.contains(ip))
}

/// A [`Forbidden`] for `address` falling in `block` (directly, or through `embedded`).
fn forbidden<Addr>(
    address: IpAddr,
    embedded: Option<(Ipv4Addr, &'static str)>,
    block: &Block<Addr>,
) -> Forbidden {
    Forbidden {
        address,
        embedded,
        range: block.cidr,
        what: block.what,
    }
}

/// Ok when `ip` is a global unicast address; otherwise which range it falls in.
///
/// IPv6 addresses that embed IPv4 addresses (see [`embedded_ipv4`]) are forbidden when
/// any embedded address is. IPv6 addresses outside global unicast (2000::/3) that embed
/// nothing are forbidden as reserved.
pub fn check_ip(ip: IpAddr) -> Result<(), Forbidden> {
    match ip {
        IpAddr::V4(v4) => match v4_block_of(v4) {
            Some(block) => Err(forbidden(ip, None, block)),
            None => Ok(()),
        },
        IpAddr::V6(v6) => check_v6(v6),
    }
}

/// [`check_ip`] for IPv6: named blocks, then embedded IPv4 addresses, then the
/// unallocated space.
fn check_v6(ip: Ipv6Addr) -> Result<(), Forbidden> {
    let address = IpAddr::V6(ip);
    if let Some(block) = v6_block_of(FORBIDDEN_V6, ip) {
        return Err(forbidden(address, None, block));
    }
    let embedded = embedded_ipv4(ip);
    for &(inner, form) in &embedded {
        if let Some(block) = v4_block_of(inner) {
            return Err(forbidden(address, Some((inner, form)), block));
        }
    }
    if embedded.is_empty() {
        if let Some(block) = v6_block_of(UNALLOCATED_V6, ip) {
            return Err(forbidden(address, None, block));
        }
    }
    Ok(())
}

/// The IPv4 address embedded in an IPv6 address, with the embedding's name, for:
/// IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96 (deprecated, excluding :: and ::1),
/// NAT64 64:ff9b::/96, 6to4 2002::/16 (bits 16..48), Teredo 2001::/32 (client = last
/// 32 bits XOR 0xffff_ffff; also the server address in bits 32..64 — judge both).
///
/// Names: "IPv4-mapped", "IPv4-compatible", "NAT64", "6to4", "Teredo server" and
/// "Teredo client" (server first). Empty when `ip` embeds nothing.
pub fn embedded_ipv4(ip: Ipv6Addr) -> Vec<(Ipv4Addr, &'static str)> {
    const MAPPED_PREFIX: u128 = 0xffff;
    const NAT64_PREFIX: u128 = 0x0064_ff9b_0000_0000_0000_0000;
    const SIX_TO_FOUR_PREFIX: u128 = 0x2002;
    const TEREDO_PREFIX: u128 = 0x2001_0000;

    let bits = u128::from(ip);
    let low_32 = Ipv4Addr::from(bits as u32);
    let top_96 = bits >> 32;
    if top_96 == MAPPED_PREFIX {
        vec![(low_32, "IPv4-mapped")]
    } else if top_96 == 0 && bits > 1 {
        vec![(low_32, "IPv4-compatible")]
    } else if top_96 == NAT64_PREFIX {
        vec![(low_32, "NAT64")]
    } else if bits >> 112 == SIX_TO_FOUR_PREFIX {
        vec![(Ipv4Addr::from((bits >> 80) as u32), "6to4")]
    } else if bits >> 96 == TEREDO_PREFIX {
        let server = Ipv4Addr::from((bits >> 64) as u32);
        let client = Ipv4Addr::from(!(bits as u32));
        vec![(server, "Teredo server"), (client, "Teredo client")]
    } else {
        Vec::new()
    }
}

/// What a domain name (already lower-cased ASCII/punycode as the `url` crate gives it) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameClass {
    /// Reserved by RFC 2606/6761 and never resolvable: `invalid`, `test`, `example` and names under them. Broken without a lookup.
    ///
    /// Also the empty name, and a name whose last label is numeric (`123`, `0x7f`): no
    /// top-level domain is, and a system resolver would read such a name as an IPv4
    /// address in some spelling.
    Reserved,
    /// Names for this machine or the local network: `localhost`, `*.localhost`, `local` (mDNS), `*.local`, `*.internal`, `*.home.arpa`. Blocked.
    ///
    /// `internal` and `home.arpa` themselves are local too.
    Local,
    /// `.onion` (RFC 7686): not reachable through DNS.
    Onion,
    /// An ordinary name: look it up (and vet the addresses).
    Lookup,
}

/// Top-level domains reserved by RFC 2606/6761 that never resolve.
const RESERVED_TLDS: &[&str] = &["invalid", "test", "example"];

/// Top-level domains naming this machine or the local network.
const LOCAL_TLDS: &[&str] = &["localhost", "local", "internal"];

/// What `host` is. Trailing dots ("localhost.", "example.com.") are ignored; matching is case-insensitive.
pub fn classify_name(host: &str) -> NameClass {
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    let last_label = name.rsplit('.').next().unwrap_or_default();
    let never_resolves = last_label.is_empty()
        || is_numeric_label(last_label)
        || RESERVED_TLDS.contains(&last_label);
    if never_resolves {
        NameClass::Reserved
    } else if LOCAL_TLDS.contains(&last_label) || is_at_or_under(&name, "home.arpa") {
        NameClass::Local
    } else if last_label == "onion" {
        NameClass::Onion
    } else {
        NameClass::Lookup
    }
}

/// Whether `name` is `zone` or a name under it.
fn is_at_or_under(name: &str, zone: &str) -> bool {
    name == zone
        || name
            .strip_suffix(zone)
            .is_some_and(|parent| parent.ends_with('.'))
}

/// Whether `label` is a number the WHATWG IPv4 parser (or `inet_aton`) would read:
/// decimal or octal digits, or `0x` followed by hex digits.
fn is_numeric_label(label: &str) -> bool {
    let hex_digits = label
        .strip_prefix("0x")
        .or_else(|| label.strip_prefix("0X"));
    match hex_digits {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// Which non-global addresses may be reached anyway. Default: none. Unsafe for production;
/// exists for tests that run servers on loopback.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GuardPolicy {
    /// Permit every address that is not global: private, loopback, link-local and the
    /// rest.
    pub allow_private: bool,
    /// Sockets (IP and port) that are permitted although their IP is not global.
    pub allowed_sockets: Vec<SocketAddr>,
}

impl GuardPolicy {
    /// Ok if `addr` may be connected to: its IP is global, or private addresses are allowed, or it is exactly one of `allowed_sockets` (IP and port).
    pub fn permits(&self, addr: SocketAddr) -> Result<(), Forbidden> {
        match check_ip(addr.ip()) {
            Ok(()) => Ok(()),
            Err(_) if self.allow_private || self.allows_socket(addr) => Ok(()),
            Err(forbidden) => Err(forbidden),
        }
    }

    /// Whether `addr` is one of `allowed_sockets`, comparing IP and port only.
    fn allows_socket(&self, addr: SocketAddr) -> bool {
        self.allowed_sockets
            .iter()
            .any(|allowed| allowed.ip() == addr.ip() && allowed.port() == addr.port())
    }
}

/// Where a URL may be fetched, once the guard has read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The host is an IP literal (any spelling the URL parser accepts) that the policy permits.
    Address(SocketAddr),
    /// A domain name to resolve (through a resolver that vets every address), with the port.
    Name {
        /// The name as the URL parser gives it: lower-cased ASCII, punycode for
        /// international names, a trailing dot kept.
        host: String,
        /// The URL's port or the scheme's default.
        port: u16,
    },
}

/// Why the guard will not fetch a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    /// Scheme is not http or https.
    #[error("not an http or https link ({0}:)")]
    NotHttp(String),
    /// No host.
    #[error("the link has no host")]
    NoHost,
    /// user:password@ in the URL: never sent.
    #[error("the link carries a user name or password; sourcebot never sends credentials")]
    Userinfo,
    /// An IP literal the policy forbids.
    #[error("{0}")]
    Forbidden(Forbidden),
    /// localhost and local-network names.
    #[error("{0} names this machine or the local network")]
    LocalName(String),
    /// RFC 2606/6761 reserved names (and numeric-looking names; see [`NameClass::Reserved`]).
    #[error("{0} is a reserved name that never resolves")]
    ReservedName(String),
    /// .onion.
    #[error("{0} is a Tor onion address, not reachable through DNS")]
    Onion(String),
}

/// Judges a parsed URL before any connection: scheme, userinfo, host spelling.
/// Port: the URL's port or the scheme default.
pub fn judge_url(url: &Url, policy: &GuardPolicy) -> Result<Target, UrlRefusal> {
    let default_port = match url.scheme() {
        "http" => 80,
        "https" => 443,
        other => return Err(UrlRefusal::NotHttp(other.to_string())),
    };
    let host = url.host().ok_or(UrlRefusal::NoHost)?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlRefusal::Userinfo);
    }
    let port = url.port().unwrap_or(default_port);
    match host {
        Host::Ipv4(ip) => judge_address(SocketAddr::new(IpAddr::V4(ip), port), policy),
        Host::Ipv6(ip) => judge_address(SocketAddr::new(IpAddr::V6(ip), port), policy),
        Host::Domain(name) => judge_name(name, port),
    }
}

/// The target for an IP literal, if the policy permits it.
fn judge_address(addr: SocketAddr, policy: &GuardPolicy) -> Result<Target, UrlRefusal> {
    policy
        .permits(addr)
        .map(|()| Target::Address(addr))
        .map_err(UrlRefusal::Forbidden)
}

/// The target for a domain name, unless its name alone rules it out.
fn judge_name(name: &str, port: u16) -> Result<Target, UrlRefusal> {
    match classify_name(name) {
        NameClass::Lookup => Ok(Target::Name {
            host: name.to_string(),
            port,
        }),
        NameClass::Local => Err(UrlRefusal::LocalName(name.to_string())),
        NameClass::Reserved => Err(UrlRefusal::ReservedName(name.to_string())),
        NameClass::Onion => Err(UrlRefusal::Onion(name.to_string())),
    }
}

#[cfg(test)]
mod tests;
