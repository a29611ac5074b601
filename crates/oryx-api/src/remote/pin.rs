//! Trusting one server's certificate by its fingerprint. `oryx serve --tls-cert` usually runs
//! with a self-signed certificate that no authority vouches for; the person compares the
//! fingerprint the server printed with the one the console shows, once, and from then on only a
//! server presenting that very certificate gets the token.

use std::sync::{Arc, Mutex};

use reqwest::blocking::Client;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ApiResult, ErrorCode};

/// SHA-256 of a DER certificate as `AB:CD:…` (how `openssl x509 -fingerprint -sha256` and
/// `oryx serve` print it).
pub fn fingerprint(der: &[u8]) -> String {
    let digest = Sha256::digest(der);
    let hex: Vec<String> = digest.iter().map(|b| format!("{b:02X}")).collect();
    hex.join(":")
}

/// The same fingerprint however it was typed or pasted (lower case, spaces, no colons).
pub fn normalise_fingerprint(text: &str) -> ApiResult<String> {
    let hex: String = text
        .trim()
        .trim_start_matches("SHA256:")
        .trim_start_matches("sha256:")
        .chars()
        .filter(|c| !matches!(c, ':' | ' ' | '-'))
        .collect();
    if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(ApiError::invalid(format!(
            "{text:?} is not a SHA-256 certificate fingerprint (64 hexadecimal digits, as `oryx serve` prints it)"
        )));
    }
    let upper = hex.to_ascii_uppercase();
    let pairs: Vec<&str> = (0..32).map(|i| &upper[i * 2..i * 2 + 2]).collect();
    Ok(pairs.join(":"))
}

/// Accepts the server's certificate only when its fingerprint is `expected`; with `None`, accepts
/// any and only records it (the probe, which sends no token).
#[derive(Debug)]
struct Pinned {
    expected: Option<String>,
    seen: Arc<Mutex<Option<String>>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let got = fingerprint(end_entity);
        *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = Some(got.clone());
        match &self.expected {
            Some(expected) if *expected != got => Err(rustls::Error::General(format!(
                "the server's certificate has fingerprint {got}, not the trusted {expected}"
            ))),
            _ => Ok(ServerCertVerified::assertion()),
        }
    }

    // The handshake's signatures are still checked: a pinned certificate is worthless if anyone
    // holding a copy of it (it is public) could complete the handshake.
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// A client that talks only to the server with this certificate (`Some`), or to any server while
/// recording its certificate (`None`); the second value is where the fingerprint seen lands.
pub(super) fn client(
    expected: Option<String>,
    timeout: Option<std::time::Duration>,
) -> ApiResult<(Client, Arc<Mutex<Option<String>>>)> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let seen = Arc::new(Mutex::new(None));
    let verifier = Pinned {
        expected,
        seen: seen.clone(),
        provider: provider.clone(),
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ApiError::internal(format!("cannot set up TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    let client = super::http::builder(timeout)
        .use_preconfigured_tls(config)
        .build()
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("cannot set up TLS: {e}")))?;
    Ok((client, seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_read_however_they_are_typed() {
        let fp = fingerprint(b"not really a certificate");
        assert_eq!(fp.len(), 95);
        assert_eq!(normalise_fingerprint(&fp).unwrap(), fp);
        let loose = fp.replace(':', "").to_ascii_lowercase();
        assert_eq!(normalise_fingerprint(&loose).unwrap(), fp);
        assert_eq!(normalise_fingerprint(&format!("SHA256:{fp}")).unwrap(), fp);
        assert!(normalise_fingerprint("AB:CD").is_err());
        assert!(normalise_fingerprint(&"ZZ".repeat(32)).is_err());
    }
}
