//! Remote consoles' tokens in the system's keyring, one entry per server address.

use oryx_api::{ApiError, ErrorCode};

const SERVICE: &str = "oryxos-console";

/// Set by whoever starts the app (the desktop tests): `kernel` to skip the Secret Service.
pub const TOKEN_STORE_ENV: &str = "ORYX_TOKEN_STORE";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenStore {
    /// GNOME Keyring, KWallet… over D-Bus.
    SecretService,
    /// The kernel's keyring (keyutils): no daemon, kept until reboot.
    Kernel,
    /// Nowhere to keep a token on this system.
    None,
}

impl TokenStore {
    /// The Secret Service when it answers, else the kernel's keyring.
    pub fn detect() -> TokenStore {
        #[cfg(target_os = "linux")]
        {
            let forced = std::env::var(TOKEN_STORE_ENV).unwrap_or_default();
            if forced != "kernel" && secret_service_answers() {
                return TokenStore::SecretService;
            }
            if keyring::keyutils::KeyutilsCredential::new_with_target(None, SERVICE, "probe")
                .is_ok()
            {
                return TokenStore::Kernel;
            }
        }
        TokenStore::None
    }

    /// Said in Settings beside "remember".
    pub fn describe(self) -> &'static str {
        match self {
            TokenStore::SecretService => "secret_service",
            TokenStore::Kernel => "kernel",
            TokenStore::None => "none",
        }
    }

    #[cfg(target_os = "linux")]
    fn entry(self, url: &str) -> Result<keyring::Entry, ApiError> {
        let credential: Box<keyring::credential::Credential> = match self {
            TokenStore::SecretService => Box::new(
                keyring::secret_service::SsCredential::new_with_target(None, SERVICE, url)
                    .map_err(keyring_error)?,
            ),
            TokenStore::Kernel => Box::new(
                keyring::keyutils::KeyutilsCredential::new_with_target(None, SERVICE, url)
                    .map_err(keyring_error)?,
            ),
            TokenStore::None => return Err(no_store()),
        };
        Ok(keyring::Entry::new_with_credential(credential))
    }

    pub fn get(self, url: &str) -> Result<Option<String>, ApiError> {
        #[cfg(target_os = "linux")]
        {
            if self == TokenStore::None {
                return Ok(None);
            }
            match self.entry(url)?.get_password() {
                Ok(t) => Ok(Some(t)),
                Err(keyring::Error::NoEntry) => Ok(None),
                Err(e) => Err(keyring_error(e)),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = url;
            Ok(None)
        }
    }

    pub fn set(self, url: &str, token: &str) -> Result<(), ApiError> {
        #[cfg(target_os = "linux")]
        {
            self.entry(url)?.set_password(token).map_err(keyring_error)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (url, token);
            Err(no_store())
        }
    }

    pub fn delete(self, url: &str) -> Result<(), ApiError> {
        #[cfg(target_os = "linux")]
        {
            if self == TokenStore::None {
                return Ok(());
            }
            match self.entry(url)?.delete_credential() {
                Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
                Err(e) => Err(keyring_error(e)),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = url;
            Ok(())
        }
    }
}

#[cfg(target_os = "linux")]
fn secret_service_answers() -> bool {
    // Without a session bus libdbus would try to start one; there is nothing to ask then.
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return false;
    }
    match keyring::secret_service::SsCredential::new_with_target(None, SERVICE, "probe") {
        Ok(c) => {
            use keyring::credential::CredentialApi;
            matches!(c.get_password(), Ok(_) | Err(keyring::Error::NoEntry))
        }
        Err(_) => false,
    }
}

fn no_store() -> ApiError {
    ApiError::new(
        ErrorCode::Io,
        "this system has no keyring to keep the token in: connect without remembering it",
    )
}

#[cfg(target_os = "linux")]
fn keyring_error(e: keyring::Error) -> ApiError {
    ApiError::new(ErrorCode::Io, format!("the system's keyring: {e}"))
}
