//! The hostile server over HTTPS: [`HostileServer::start_tls`] serves the same routes
//! and actions as the plain server behind TLS, with a self-signed certificate for
//! `localhost` and the listening IP made with rcgen at start. No client trusts it unless
//! told to (e.g. reqwest's `danger_accept_invalid_certs(true)`, or by adding
//! [`HostileServer::cert_der`] as a root), so a default client fails the handshake.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

use super::hostile::{launch, serve_connection, HostileServer, Route};

impl HostileServer {
    /// Starts an HTTPS server on `ip:0` with a fresh self-signed certificate for
    /// `localhost` and `ip`. Routes behave as in [`HostileServer::start`]; `url()` gives
    /// `https://ip:port/path`. A failed handshake counts as a connection, not a request.
    pub async fn start_tls(ip: IpAddr, routes: Vec<(&str, Route)>) -> HostileServer {
        let (config, cert_der) = self_signed_config(ip);
        let acceptor = TlsAcceptor::from(Arc::new(config));
        launch(ip, routes, "https", Some(cert_der), move |tcp, shared| {
            let acceptor = acceptor.clone();
            async move {
                if let Ok(tls) = acceptor.accept(tcp).await {
                    serve_connection(tls, shared).await;
                }
            }
        })
        .await
    }

    /// [`HostileServer::start_tls`] on 127.0.0.1.
    pub async fn start_tls_local(routes: Vec<(&str, Route)>) -> HostileServer {
        HostileServer::start_tls(IpAddr::V4(Ipv4Addr::LOCALHOST), routes).await
    }
}

/// A rustls server configuration (ring provider, TLS 1.2 and 1.3, ALPN `http/1.1`) with
/// a new self-signed certificate for `localhost` and `ip`, and that certificate's DER.
pub fn self_signed_config(ip: IpAddr) -> (ServerConfig, Vec<u8>) {
    let names = vec!["localhost".to_owned(), ip.to_string()];
    let certified = rcgen::generate_simple_self_signed(names).expect("rcgen: self-signed cert");
    let cert_der: CertificateDer<'static> = certified.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("rustls: protocol versions")
        .with_no_client_auth()
        .with_single_cert(vec![cert_der.clone()], key)
        .expect("rustls: server certificate");
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    (config, cert_der.to_vec())
}
