//! Tests of `guard`.
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
