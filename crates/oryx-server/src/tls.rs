//! HTTPS: `--tls-cert FILE --tls-key FILE` (PEM). The files are read once at start; any problem
//! with them stops the server before it listens, naming the file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use oryx_api::{ApiError, ErrorCode};
use rustls_pki_types::pem::{self, PemObject};
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls;
use tokio_rustls::TlsAcceptor;

/// The certificate chain and its private key, both PEM files.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read the TLS {what} {}: {source}", path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the TLS {what} {} is not valid PEM: {detail}", path.display())]
    BadPem {
        what: &'static str,
        path: PathBuf,
        detail: String,
    },
    #[error("the TLS certificate file {} holds no certificate (expected PEM BEGIN CERTIFICATE)", .0.display())]
    NoCertificate(PathBuf),
    #[error("the TLS key file {} holds no private key (expected PEM BEGIN PRIVATE KEY, RSA or EC)", .0.display())]
    NoKey(PathBuf),
    #[error("the TLS certificate {} and key {} cannot be used together: {detail}", cert.display(), key.display())]
    Mismatch {
        cert: PathBuf,
        key: PathBuf,
        detail: String,
    },
}

impl From<TlsError> for ApiError {
    fn from(e: TlsError) -> Self {
        let code = match e {
            TlsError::Read { .. } => ErrorCode::Io,
            _ => ErrorCode::InvalidInput,
        };
        ApiError::new(code, e.to_string())
    }
}

fn pem_error(what: &'static str, path: &Path, e: pem::Error) -> TlsError {
    match e {
        pem::Error::Io(source) => TlsError::Read {
            what,
            path: path.to_path_buf(),
            source,
        },
        other => TlsError::BadPem {
            what,
            path: path.to_path_buf(),
            detail: other.to_string(),
        },
    }
}

/// Reads both files and builds the acceptor (TLS 1.2 and 1.3, HTTP/1.1 offered by ALPN), with
/// the SHA-256 fingerprint of the server's certificate: printed at start, so whoever connects
/// can compare it with what their console shows before trusting a self-signed certificate.
pub fn acceptor(files: &TlsFiles) -> Result<(TlsAcceptor, String), TlsError> {
    // A missing file is named as such before PEM parsing makes it look like an empty one.
    for (what, path) in [("certificate file", &files.cert), ("key file", &files.key)] {
        std::fs::metadata(path).map_err(|source| TlsError::Read {
            what,
            path: path.clone(),
            source,
        })?;
    }
    let certs = CertificateDer::pem_file_iter(&files.cert)
        .map_err(|e| pem_error("certificate file", &files.cert, e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem_error("certificate file", &files.cert, e))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate(files.cert.clone()));
    }
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| match e {
        pem::Error::NoItemsFound => TlsError::NoKey(files.key.clone()),
        other => pem_error("key file", &files.key, other),
    })?;
    let fingerprint = oryx_api::remote::fingerprint(&certs[0]);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(certs, key))
        .map_err(|e| TlsError::Mismatch {
            cert: files.cert.clone(),
            key: files.key.clone(),
            detail: e.to_string(),
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((TlsAcceptor::from(Arc::new(config)), fingerprint))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(f: &TlsFiles) -> TlsError {
        match acceptor(f) {
            Ok(_) => panic!("{f:?} was accepted"),
            Err(e) => e,
        }
    }

    fn files(dir: &Path, cert: &str, key: &str) -> TlsFiles {
        let f = TlsFiles {
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        };
        std::fs::write(&f.cert, cert).unwrap();
        std::fs::write(&f.key, key).unwrap();
        f
    }

    #[test]
    fn missing_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let f = TlsFiles {
            cert: dir.path().join("nope.pem"),
            key: dir.path().join("nokey.pem"),
        };
        let e = refused(&f);
        assert!(
            matches!(
                e,
                TlsError::Read {
                    what: "certificate file",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("nope.pem"), "{e}");
        assert_eq!(ApiError::from(e).code, ErrorCode::Io);
    }

    #[test]
    fn files_without_pem_are_refused_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let e = refused(&files(dir.path(), "not a certificate\n", "nor a key\n"));
        assert!(matches!(e, TlsError::NoCertificate(_)), "{e}");
        assert!(e.to_string().contains("cert.pem"), "{e}");
        assert_eq!(ApiError::from(e).code, ErrorCode::InvalidInput);
    }

    #[test]
    fn a_broken_pem_body_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cert = "-----BEGIN CERTIFICATE-----\n!!!notbase64!!!\n-----END CERTIFICATE-----\n";
        let e = refused(&files(dir.path(), cert, ""));
        assert!(matches!(e, TlsError::BadPem { .. }), "{e}");
    }
}
