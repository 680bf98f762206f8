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
mod tests {
    use super::*;

    fn v4(text: &str) -> Ipv4Addr {
        text.parse().unwrap()
    }

    fn v6(text: &str) -> Ipv6Addr {
        text.parse().unwrap()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn socket(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    /// The range `text` is refused for, or None when it passes.
    fn refused_range(text: &str) -> Option<&'static str> {
        check_ip(ip(text)).err().map(|f| f.range)
    }

    #[test]
    fn every_block_spells_its_cidr_from_its_network() {
        for b in FORBIDDEN_V4 {
            assert_eq!(b.cidr, format!("{}/{}", b.network, b.prefix_len));
            assert!(b.prefix_len <= 32);
            assert!(b.contains(b.network));
        }
        for b in FORBIDDEN_V6.iter().chain(UNALLOCATED_V6) {
            assert_eq!(b.cidr, format!("{}/{}", b.network, b.prefix_len));
            assert!(b.prefix_len <= 128);
            assert!(b.contains(b.network));
        }
    }

    #[test]
    fn unallocated_v6_blocks_and_global_unicast_tile_the_address_space() {
        let global_unicast = block(Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3, "", "");
        let named_outside_global = ["fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"];
        for top in 0..=u16::MAX {
            let addr = Ipv6Addr::new(top, 0, 0, 0, 0, 0, 0, 1);
            let holders = UNALLOCATED_V6.iter().filter(|b| b.contains(addr)).count()
                + usize::from(global_unicast.contains(addr))
                + FORBIDDEN_V6
                    .iter()
                    .filter(|b| named_outside_global.contains(&b.cidr) && b.contains(addr))
                    .count();
            assert_eq!(holders, 1, "{addr}");
        }
    }

    #[test]
    fn ipv4_ranges_first_and_last_addresses_are_refused() {
        let cases = [
            ("0.0.0.0", "0.0.0.0/8", "this network"),
            ("0.255.255.255", "0.0.0.0/8", "this network"),
            ("10.0.0.0", "10.0.0.0/8", "private"),
            ("10.255.255.255", "10.0.0.0/8", "private"),
            ("100.64.0.0", "100.64.0.0/10", "shared (CGNAT)"),
            ("100.127.255.255", "100.64.0.0/10", "shared (CGNAT)"),
            ("127.0.0.0", "127.0.0.0/8", "loopback"),
            ("127.0.0.1", "127.0.0.0/8", "loopback"),
            ("127.255.255.255", "127.0.0.0/8", "loopback"),
            ("169.254.0.0", "169.254.0.0/16", "link-local"),
            ("169.254.169.254", "169.254.0.0/16", "link-local"),
            ("169.254.255.255", "169.254.0.0/16", "link-local"),
            ("172.16.0.0", "172.16.0.0/12", "private"),
            ("172.31.255.255", "172.16.0.0/12", "private"),
            ("192.0.0.0", "192.0.0.0/24", "IETF protocol assignment"),
            ("192.0.0.255", "192.0.0.0/24", "IETF protocol assignment"),
            ("192.0.2.0", "192.0.2.0/24", "documentation (TEST-NET-1)"),
            ("192.0.2.255", "192.0.2.0/24", "documentation (TEST-NET-1)"),
            (
                "192.88.99.0",
                "192.88.99.0/24",
                "6to4 relay anycast (deprecated)",
            ),
            (
                "192.88.99.255",
                "192.88.99.0/24",
                "6to4 relay anycast (deprecated)",
            ),
            ("192.168.0.0", "192.168.0.0/16", "private"),
            ("192.168.255.255", "192.168.0.0/16", "private"),
            ("198.18.0.0", "198.18.0.0/15", "benchmarking"),
            ("198.19.255.255", "198.18.0.0/15", "benchmarking"),
            (
                "198.51.100.0",
                "198.51.100.0/24",
                "documentation (TEST-NET-2)",
            ),
            (
                "198.51.100.255",
                "198.51.100.0/24",
                "documentation (TEST-NET-2)",
            ),
            (
                "203.0.113.0",
                "203.0.113.0/24",
                "documentation (TEST-NET-3)",
            ),
            (
                "203.0.113.255",
                "203.0.113.0/24",
                "documentation (TEST-NET-3)",
            ),
            ("224.0.0.0", "224.0.0.0/4", "multicast"),
            ("239.255.255.255", "224.0.0.0/4", "multicast"),
            ("240.0.0.0", "240.0.0.0/4", "reserved"),
            ("255.255.255.254", "240.0.0.0/4", "reserved"),
            ("255.255.255.255", "255.255.255.255/32", "broadcast"),
        ];
        for (addr, range, what) in cases {
            let expected = Forbidden {
                address: ip(addr),
                embedded: None,
                range,
                what,
            };
            assert_eq!(check_ip(ip(addr)), Err(expected), "{addr}");
        }
    }

    #[test]
    fn ipv4_addresses_just_outside_each_range_pass() {
        let cases = [
            "1.0.0.0",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "191.255.255.255",
            "192.0.1.0",
            "192.0.1.255",
            "192.0.3.0",
            "192.88.98.255",
            "192.88.100.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "198.51.99.255",
            "198.51.101.0",
            "203.0.112.255",
            "203.0.114.0",
            "223.255.255.255",
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
        ];
        for addr in cases {
            assert_eq!(check_ip(ip(addr)), Ok(()), "{addr}");
        }
    }

    #[test]
    fn ipv6_ranges_first_and_last_addresses_are_refused() {
        let cases = [
            ("::", "::/128", "unspecified"),
            ("::1", "::1/128", "loopback"),
            ("fc00::", "fc00::/7", "unique local"),
            ("fd00::1", "fc00::/7", "unique local"),
            (
                "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "fc00::/7",
                "unique local",
            ),
            ("fe80::", "fe80::/10", "link-local"),
            (
                "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "fe80::/10",
                "link-local",
            ),
            ("fec0::", "fec0::/10", "site-local (deprecated)"),
            (
                "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "fec0::/10",
                "site-local (deprecated)",
            ),
            ("ff00::", "ff00::/8", "multicast"),
            (
                "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "ff00::/8",
                "multicast",
            ),
            ("2001:db8::", "2001:db8::/32", "documentation"),
            (
                "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
                "2001:db8::/32",
                "documentation",
            ),
            ("3fff::", "3fff::/20", "documentation"),
            (
                "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
                "3fff::/20",
                "documentation",
            ),
            ("100::", "100::/64", "discard-only"),
            ("100::ffff:ffff:ffff:ffff", "100::/64", "discard-only"),
            ("2001:2::", "2001:2::/48", "benchmarking"),
            (
                "2001:2:0:ffff:ffff:ffff:ffff:ffff",
                "2001:2::/48",
                "benchmarking",
            ),
            ("2001:10::", "2001:10::/28", "ORCHID (deprecated)"),
            (
                "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff",
                "2001:10::/28",
                "ORCHID (deprecated)",
            ),
            ("2001:20::", "2001:20::/28", "ORCHIDv2"),
            (
                "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff",
                "2001:20::/28",
                "ORCHIDv2",
            ),
            ("64:ff9b:1::", "64:ff9b:1::/48", "local-use NAT64"),
            (
                "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
                "64:ff9b:1::/48",
                "local-use NAT64",
            ),
            ("5f00::", "5f00::/16", "SRv6 SID"),
            (
                "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "5f00::/16",
                "SRv6 SID",
            ),
        ];
        for (addr, range, what) in cases {
            let expected = Forbidden {
                address: ip(addr),
                embedded: None,
                range,
                what,
            };
            assert_eq!(check_ip(ip(addr)), Err(expected), "{addr}");
        }
    }

    #[test]
    fn ipv6_addresses_just_outside_each_range() {
        // (address, the range it is refused for, or None when it passes)
        let cases = [
            ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("f800::/6")),
            ("fe00::", Some("fe00::/9")),
            ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("fe00::/9")),
            ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("2001:db9::", None),
            ("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("3fff:1000::", None),
            ("ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("::/8")),
            ("100:0:0:1::", Some("100::/8")),
            ("2001:1:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("2001:2:1::", None),
            ("2001:f:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("2001:30::", None),
            ("64:ff9b:0:ffff:ffff:ffff:ffff:ffff", Some("::/8")),
            ("64:ff9b:2::", Some("::/8")),
            ("5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("4000::/3")),
            ("5f01::", Some("4000::/3")),
            ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("1000::/4")),
            ("2000::", None),
            ("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
            ("4000::", Some("4000::/3")),
            ("2606:4700:4700::1111", None),
            ("2a00:1450::1", None),
            ("2001:4860:4860::8888", None),
        ];
        for (addr, expected) in cases {
            assert_eq!(refused_range(addr), expected, "{addr}");
        }
    }

    #[test]
    fn embedded_ipv4_reads_every_form() {
        let cases: [(&str, Vec<(&str, &str)>); 12] = [
            ("::ffff:127.0.0.1", vec![("127.0.0.1", "IPv4-mapped")]),
            ("::ffff:7f00:1", vec![("127.0.0.1", "IPv4-mapped")]),
            ("::8.8.8.8", vec![("8.8.8.8", "IPv4-compatible")]),
            ("::2", vec![("0.0.0.2", "IPv4-compatible")]),
            ("::", vec![]),
            ("::1", vec![]),
            ("64:ff9b::10.0.0.1", vec![("10.0.0.1", "NAT64")]),
            ("2002:7f00:0001::", vec![("127.0.0.1", "6to4")]),
            ("2002:0808:0808:1:2:3:4:5", vec![("8.8.8.8", "6to4")]),
            (
                // Wikipedia's example: server 65.54.227.120, client 192.0.2.45.
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                vec![
                    ("65.54.227.120", "Teredo server"),
                    ("192.0.2.45", "Teredo client"),
                ],
            ),
            ("2001:1::1", vec![]),
            ("2606:4700:4700::1111", vec![]),
        ];
        for (addr, expected) in cases {
            let expected: Vec<(Ipv4Addr, &str)> = expected
                .into_iter()
                .map(|(a, form)| (v4(a), form))
                .collect();
            assert_eq!(embedded_ipv4(v6(addr)), expected, "{addr}");
        }
    }

    #[test]
    fn ipv6_forms_embedding_ipv4_are_judged_by_every_embedded_address() {
        // (address, Some((embedded, form, range)) when refused, None when it passes)
        let cases = [
            ("::ffff:8.8.8.8", None),
            (
                "::ffff:127.0.0.1",
                Some(("127.0.0.1", "IPv4-mapped", "127.0.0.0/8")),
            ),
            (
                "::ffff:7f00:1",
                Some(("127.0.0.1", "IPv4-mapped", "127.0.0.0/8")),
            ),
            (
                "::ffff:0.0.0.0",
                Some(("0.0.0.0", "IPv4-mapped", "0.0.0.0/8")),
            ),
            (
                "::ffff:169.254.169.254",
                Some(("169.254.169.254", "IPv4-mapped", "169.254.0.0/16")),
            ),
            ("::8.8.8.8", None),
            (
                "::10.0.0.1",
                Some(("10.0.0.1", "IPv4-compatible", "10.0.0.0/8")),
            ),
            ("::2", Some(("0.0.0.2", "IPv4-compatible", "0.0.0.0/8"))),
            (
                "::127.0.0.1",
                Some(("127.0.0.1", "IPv4-compatible", "127.0.0.0/8")),
            ),
            ("64:ff9b::8.8.8.8", None),
            (
                "64:ff9b::10.0.0.1",
                Some(("10.0.0.1", "NAT64", "10.0.0.0/8")),
            ),
            (
                "64:ff9b::a9fe:a9fe",
                Some(("169.254.169.254", "NAT64", "169.254.0.0/16")),
            ),
            ("2002:0808:0808::", None),
            ("2002:0808:0808:ffff:ffff:ffff:ffff:ffff", None),
            (
                "2002:7f00:0001::",
                Some(("127.0.0.1", "6to4", "127.0.0.0/8")),
            ),
            (
                "2002:c0a8:0101::1",
                Some(("192.168.1.1", "6to4", "192.168.0.0/16")),
            ),
            // Teredo: server 65.54.227.120 and client 8.8.8.8 (0xf7f7f7f7 inverted).
            ("2001:0:4136:e378::f7f7:f7f7", None),
            // Client 127.0.0.1 (0x80fffffe inverted).
            (
                "2001:0:4136:e378::80ff:fffe",
                Some(("127.0.0.1", "Teredo client", "127.0.0.0/8")),
            ),
            // Client 10.0.0.1 (0xf5fffffe inverted).
            (
                "2001:0:4136:e378:8000:63bf:f5ff:fffe",
                Some(("10.0.0.1", "Teredo client", "10.0.0.0/8")),
            ),
            // Client 192.0.2.45: documentation.
            (
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                Some(("192.0.2.45", "Teredo client", "192.0.2.0/24")),
            ),
            // Server 10.0.0.1, client 8.8.8.8.
            (
                "2001:0:a00:1::f7f7:f7f7",
                Some(("10.0.0.1", "Teredo server", "10.0.0.0/8")),
            ),
            ("2001::", Some(("0.0.0.0", "Teredo server", "0.0.0.0/8"))),
        ];
        for (addr, expected) in cases {
            let got = check_ip(ip(addr)).err().map(|f| (f.embedded, f.range));
            let expected = expected.map(|(inner, form, range)| (Some((v4(inner), form)), range));
            assert_eq!(got, expected, "{addr}");
        }
    }

    #[test]
    fn display_reads_well() {
        let cases = [
            ("127.0.0.1", "127.0.0.1 is a loopback address (127.0.0.0/8)"),
            (
                "::ffff:10.0.0.1",
                "::ffff:10.0.0.1 embeds 10.0.0.1 (IPv4-mapped), a private address (10.0.0.0/8)",
            ),
            ("0.0.0.0", "0.0.0.0 is a \"this network\" address (0.0.0.0/8)"),
            (
                "100.64.0.1",
                "100.64.0.1 is a shared (CGNAT) address (100.64.0.0/10)",
            ),
            (
                "192.0.0.8",
                "192.0.0.8 is an IETF protocol assignment address (192.0.0.0/24)",
            ),
            ("::", ":: is an unspecified address (::/128)"),
            ("fd00::1", "fd00::1 is a unique local address (fc00::/7)"),
            ("5f00::1", "5f00::1 is an SRv6 SID address (5f00::/16)"),
            ("2001:10::1", "2001:10::1 is an ORCHID (deprecated) address (2001:10::/28)"),
            (
                "255.255.255.255",
                "255.255.255.255 is a broadcast address (255.255.255.255/32)",
            ),
            (
                "2001:0:4136:e378::80ff:fffe",
                "2001:0:4136:e378::80ff:fffe embeds 127.0.0.1 (Teredo client), a loopback address (127.0.0.0/8)",
            ),
        ];
        for (addr, text) in cases {
            let shown = check_ip(ip(addr)).err().map(|f| f.to_string());
            assert_eq!(shown.as_deref(), Some(text), "{addr}");
        }
    }

    #[test]
    fn names_are_classified() {
        let cases = [
            ("localhost", NameClass::Local),
            ("localhost.", NameClass::Local),
            ("localhost..", NameClass::Local),
            ("LocalHost", NameClass::Local),
            ("a.b.localhost", NameClass::Local),
            ("local", NameClass::Local),
            ("printer.local", NameClass::Local),
            ("internal", NameClass::Local),
            ("db.internal", NameClass::Local),
            ("home.arpa", NameClass::Local),
            ("router.home.arpa", NameClass::Local),
            ("invalid", NameClass::Reserved),
            ("invalid.", NameClass::Reserved),
            ("x.invalid", NameClass::Reserved),
            ("foo.test", NameClass::Reserved),
            ("www.example", NameClass::Reserved),
            ("EXAMPLE", NameClass::Reserved),
            ("", NameClass::Reserved),
            (".", NameClass::Reserved),
            ("127.1", NameClass::Reserved),
            ("foo.123", NameClass::Reserved),
            ("foo.0x7f", NameClass::Reserved),
            ("foo.0X", NameClass::Reserved),
            ("abc.onion", NameClass::Onion),
            ("onion", NameClass::Onion),
            ("example.com", NameClass::Lookup),
            ("example.com.", NameClass::Lookup),
            ("example.org", NameClass::Lookup),
            ("test.com", NameClass::Lookup),
            ("localhost.com", NameClass::Lookup),
            ("notlocal", NameClass::Lookup),
            ("myhome.arpa", NameClass::Lookup),
            ("arpa", NameClass::Lookup),
            ("1e1", NameClass::Lookup),
            ("123.example.com", NameClass::Lookup),
            ("xn--bcher-kva.de", NameClass::Lookup),
        ];
        for (name, class) in cases {
            assert_eq!(classify_name(name), class, "{name:?}");
        }
    }

    fn forbidden_target(
        address: &str,
        range: &'static str,
        what: &'static str,
    ) -> Result<Target, UrlRefusal> {
        Err(UrlRefusal::Forbidden(Forbidden {
            address: ip(address),
            embedded: None,
            range,
            what,
        }))
    }

    fn forbidden_embedded(
        address: &str,
        inner: &str,
        form: &'static str,
        range: &'static str,
        what: &'static str,
    ) -> Result<Target, UrlRefusal> {
        Err(UrlRefusal::Forbidden(Forbidden {
            address: ip(address),
            embedded: Some((v4(inner), form)),
            range,
            what,
        }))
    }

    fn name_target(host: &str, port: u16) -> Result<Target, UrlRefusal> {
        Ok(Target::Name {
            host: host.to_string(),
            port,
        })
    }

    fn judge(text: &str) -> Result<Target, UrlRefusal> {
        let url = Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        judge_url(&url, &GuardPolicy::default())
    }

    #[test]
    fn loopback_in_every_ipv4_spelling_is_refused() {
        let spellings = [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0X7F000001/",
            "http://0x7f.1/",
            "http://0x7f.0x0.0x0.0x1/",
            "http://0177.0.0.1/",
            "http://017700000001/",
            "http://127.1/",
            "http://127.0.1/",
            "http://127.0.0.1./",
            "http://127.0.0.1%2e/",
            "http://127.0.0.0x1/",
            "http://①②⑦.0.0.1/",
            "http://１２７.０.０.１/",
            "http://１２７。０。０。１/",
        ];
        for text in spellings {
            assert_eq!(
                judge(text),
                forbidden_target("127.0.0.1", "127.0.0.0/8", "loopback"),
                "{text}"
            );
        }
    }

    #[test]
    fn urls_naming_non_global_hosts_are_refused() {
        let cases = [
            (
                "http://0/",
                forbidden_target("0.0.0.0", "0.0.0.0/8", "this network"),
            ),
            (
                "http://0x/",
                forbidden_target("0.0.0.0", "0.0.0.0/8", "this network"),
            ),
            (
                "http://[::]/",
                forbidden_target("::", "::/128", "unspecified"),
            ),
            (
                "http://[::1]/",
                forbidden_target("::1", "::1/128", "loopback"),
            ),
            (
                "http://[::1]:8080/",
                forbidden_target("::1", "::1/128", "loopback"),
            ),
            (
                "http://[::ffff:127.0.0.1]/",
                forbidden_embedded(
                    "::ffff:127.0.0.1",
                    "127.0.0.1",
                    "IPv4-mapped",
                    "127.0.0.0/8",
                    "loopback",
                ),
            ),
            (
                "http://[0:0:0:0:0:ffff:7f00:1]/",
                forbidden_embedded(
                    "::ffff:127.0.0.1",
                    "127.0.0.1",
                    "IPv4-mapped",
                    "127.0.0.0/8",
                    "loopback",
                ),
            ),
            (
                "http://[64:ff9b::a00:1]/",
                forbidden_embedded(
                    "64:ff9b::a00:1",
                    "10.0.0.1",
                    "NAT64",
                    "10.0.0.0/8",
                    "private",
                ),
            ),
            (
                "http://[2002:a9fe:a9fe::]/",
                forbidden_embedded(
                    "2002:a9fe:a9fe::",
                    "169.254.169.254",
                    "6to4",
                    "169.254.0.0/16",
                    "link-local",
                ),
            ),
            (
                "http://169.254.169.254/latest/meta-data/",
                forbidden_target("169.254.169.254", "169.254.0.0/16", "link-local"),
            ),
            (
                "http://[fd00::1]/",
                forbidden_target("fd00::1", "fc00::/7", "unique local"),
            ),
            (
                "http://10.1.2.3:8443/",
                forbidden_target("10.1.2.3", "10.0.0.0/8", "private"),
            ),
            (
                "https://192.168.1.1/",
                forbidden_target("192.168.1.1", "192.168.0.0/16", "private"),
            ),
            (
                "http://100.100.100.200/",
                forbidden_target("100.100.100.200", "100.64.0.0/10", "shared (CGNAT)"),
            ),
            (
                "http://localhost/",
                Err(UrlRefusal::LocalName("localhost".into())),
            ),
            (
                "http://localhost./",
                Err(UrlRefusal::LocalName("localhost.".into())),
            ),
            (
                "http://LocalHost:8080/",
                Err(UrlRefusal::LocalName("localhost".into())),
            ),
            (
                "http://ｌｏｃａｌｈｏｓｔ/",
                Err(UrlRefusal::LocalName("localhost".into())),
            ),
            (
                "http://%6c%6fcalhost/",
                Err(UrlRefusal::LocalName("localhost".into())),
            ),
            (
                "http://a.b.localhost/",
                Err(UrlRefusal::LocalName("a.b.localhost".into())),
            ),
            (
                "http://printer.local/",
                Err(UrlRefusal::LocalName("printer.local".into())),
            ),
            (
                "http://db.internal/",
                Err(UrlRefusal::LocalName("db.internal".into())),
            ),
            (
                "http://router.home.arpa/",
                Err(UrlRefusal::LocalName("router.home.arpa".into())),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(judge(text), expected, "{text}");
        }
    }

    #[test]
    fn urls_that_are_not_plain_http_links_are_refused() {
        let cases = [
            ("http://user:pass@example.com/", Err(UrlRefusal::Userinfo)),
            ("http://user@example.com/", Err(UrlRefusal::Userinfo)),
            ("https://:secret@example.com/", Err(UrlRefusal::Userinfo)),
            ("http://user:pass@8.8.8.8/", Err(UrlRefusal::Userinfo)),
            ("ftp://example.com/", Err(UrlRefusal::NotHttp("ftp".into()))),
            (
                "file:///etc/passwd",
                Err(UrlRefusal::NotHttp("file".into())),
            ),
            (
                "gopher://127.0.0.1:6379/",
                Err(UrlRefusal::NotHttp("gopher".into())),
            ),
            (
                "javascript:alert(1)",
                Err(UrlRefusal::NotHttp("javascript".into())),
            ),
            (
                "http://x.invalid/",
                Err(UrlRefusal::ReservedName("x.invalid".into())),
            ),
            (
                "http://foo.test/",
                Err(UrlRefusal::ReservedName("foo.test".into())),
            ),
            (
                "http://www.example/",
                Err(UrlRefusal::ReservedName("www.example".into())),
            ),
            (
                "http://invalid./",
                Err(UrlRefusal::ReservedName("invalid.".into())),
            ),
            ("http://./", Err(UrlRefusal::ReservedName(".".into()))),
            (
                "http://abc.onion/",
                Err(UrlRefusal::Onion("abc.onion".into())),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(judge(text), expected, "{text}");
        }
    }

    #[test]
    fn ordinary_links_are_allowed() {
        let cases = [
            ("https://example.com/x", name_target("example.com", 443)),
            ("http://example.com/", name_target("example.com", 80)),
            ("http://example.com:8080/", name_target("example.com", 8080)),
            ("https://example.com:443/", name_target("example.com", 443)),
            ("HTTPS://Example.COM./", name_target("example.com.", 443)),
            ("http://:@example.com/", name_target("example.com", 80)),
            ("https://bücher.de/", name_target("xn--bcher-kva.de", 443)),
            ("http://8.8.8.8/", Ok(Target::Address(socket("8.8.8.8:80")))),
            (
                "https://1.1.1.1/dns",
                Ok(Target::Address(socket("1.1.1.1:443"))),
            ),
            (
                "http://134744072/",
                Ok(Target::Address(socket("8.8.8.8:80"))),
            ),
            (
                "http://[2606:4700:4700::1111]/",
                Ok(Target::Address(socket("[2606:4700:4700::1111]:80"))),
            ),
            (
                "https://[::ffff:8.8.8.8]:8443/",
                Ok(Target::Address(socket("[::ffff:8.8.8.8]:8443"))),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(judge(text), expected, "{text}");
        }
    }

    #[test]
    fn unparseable_spellings_never_reach_the_guard() {
        for text in [
            "http://[fe80::1%25eth0]/",
            "http://foo.123/",
            "http://foo.0x/",
            "http://256.0.0.1/",
            "http:///",
        ] {
            assert!(Url::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn default_policy_permits_only_global_addresses() {
        let policy = GuardPolicy::default();
        assert_eq!(policy.permits(socket("8.8.8.8:53")), Ok(()));
        assert_eq!(policy.permits(socket("[2a00:1450::1]:443")), Ok(()));
        assert_eq!(
            policy.permits(socket("127.0.0.1:80")).map_err(|f| f.range),
            Err("127.0.0.0/8")
        );
    }

    #[test]
    fn allow_private_permits_non_global_addresses() {
        let policy = GuardPolicy {
            allow_private: true,
            ..GuardPolicy::default()
        };
        for addr in ["127.0.0.1:80", "10.0.0.1:443", "[::1]:8080", "8.8.8.8:80"] {
            assert_eq!(policy.permits(socket(addr)), Ok(()), "{addr}");
        }
        let url = Url::parse("http://127.0.0.1/").unwrap();
        assert_eq!(
            judge_url(&url, &policy),
            Ok(Target::Address(socket("127.0.0.1:80")))
        );
        // Names are judged by name, whatever the policy.
        let url = Url::parse("http://localhost/").unwrap();
        assert_eq!(
            judge_url(&url, &policy),
            Err(UrlRefusal::LocalName("localhost".into()))
        );
    }

    #[test]
    fn allowed_sockets_permit_exactly_their_ip_and_port() {
        let policy = GuardPolicy {
            allow_private: false,
            allowed_sockets: vec![socket("127.0.0.1:8080")],
        };
        let cases = [
            ("127.0.0.1:8080", true),
            ("127.0.0.1:8081", false),
            ("127.0.0.2:8080", false),
            ("[::ffff:127.0.0.1]:8080", false),
            ("[::1]:8080", false),
            ("8.8.8.8:8081", true),
        ];
        for (addr, permitted) in cases {
            assert_eq!(policy.permits(socket(addr)).is_ok(), permitted, "{addr}");
        }
        let url = Url::parse("http://127.0.0.1:8080/page").unwrap();
        assert_eq!(
            judge_url(&url, &policy),
            Ok(Target::Address(socket("127.0.0.1:8080")))
        );
        let url = Url::parse("http://127.0.0.1:8081/page").unwrap();
        assert!(matches!(
            judge_url(&url, &policy),
            Err(UrlRefusal::Forbidden(_))
        ));
    }

    #[test]
    fn refusals_display_reads_well() {
        let cases = [
            ("ftp://example.com/", "not an http or https link (ftp:)"),
            (
                "http://user@example.com/",
                "the link carries a user name or password; sourcebot never sends credentials",
            ),
            (
                "http://0x7f.1/",
                "127.0.0.1 is a loopback address (127.0.0.0/8)",
            ),
            (
                "http://[::ffff:10.0.0.1]/",
                "::ffff:10.0.0.1 embeds 10.0.0.1 (IPv4-mapped), a private address (10.0.0.0/8)",
            ),
            (
                "http://printer.local/",
                "printer.local names this machine or the local network",
            ),
            (
                "http://foo.test/",
                "foo.test is a reserved name that never resolves",
            ),
            (
                "http://abc.onion/",
                "abc.onion is a Tor onion address, not reachable through DNS",
            ),
        ];
        for (text, shown) in cases {
            let refusal = judge(text).err().map(|r| r.to_string());
            assert_eq!(refusal.as_deref(), Some(shown), "{text}");
        }
        assert_eq!(UrlRefusal::NoHost.to_string(), "the link has no host");
    }
}
