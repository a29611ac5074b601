//! TLS material made for one run (no key in the repository).

use std::path::{Path, PathBuf};

/// A self-signed certificate for 127.0.0.1 and localhost; returns (cert.pem, key.pem).
pub fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let ck =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, ck.cert.pem()).unwrap();
    std::fs::write(&key, ck.key_pair.serialize_pem()).unwrap();
    (cert, key)
}
