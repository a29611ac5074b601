//! Remote consoles' tokens in the system's keyring, one entry per server address.

use oryx_api::{ApiError, ErrorCode};

const SERVICE: &str = "oryxos-console";

/// Set by whoever starts the app (the desktop tests): `kernel` to skip the Secret Service.
pub const TOKEN_STORE_ENV: &str = "ORYX_TOKEN_STORE";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenStore {
    /// GNOME Keyring, KWallet… over D-Bus.
    SecretService,
    /// The kernel's user keyring (keyutils): no daemon; kept while the user is logged in,
    /// never past a reboot.
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
            if kernel::keyring().is_ok() {
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
        let credential = keyring::secret_service::SsCredential::new_with_target(None, SERVICE, url)
            .map_err(keyring_error)?;
        Ok(keyring::Entry::new_with_credential(Box::new(credential)))
    }

    pub fn get(self, url: &str) -> Result<Option<String>, ApiError> {
        #[cfg(target_os = "linux")]
        {
            match self {
                TokenStore::None => Ok(None),
                TokenStore::Kernel => kernel::get(url),
                TokenStore::SecretService => match self.entry(url)?.get_password() {
                    Ok(t) => Ok(Some(t)),
                    Err(keyring::Error::NoEntry) => Ok(None),
                    Err(e) => Err(keyring_error(e)),
                },
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
            match self {
                TokenStore::None => Err(no_store()),
                TokenStore::Kernel => kernel::set(url, token),
                TokenStore::SecretService => {
                    self.entry(url)?.set_password(token).map_err(keyring_error)
                }
            }
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
            match self {
                TokenStore::None => Ok(()),
                TokenStore::Kernel => kernel::delete(url),
                TokenStore::SecretService => match self.entry(url)?.delete_credential() {
                    Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
                    Err(e) => Err(keyring_error(e)),
                },
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

/// The kernel's user keyring: shared by the user's processes, gone at reboot.
#[cfg(target_os = "linux")]
mod kernel {
    use linux_keyutils::{KeyError, KeyRing, KeyRingIdentifier};
    use oryx_api::{ApiError, ErrorCode};

    pub fn keyring() -> Result<KeyRing, KeyError> {
        KeyRing::from_special_id(KeyRingIdentifier::User, true)
    }

    fn description(url: &str) -> String {
        format!("{}:{url}", super::SERVICE)
    }

    fn error(e: KeyError) -> ApiError {
        ApiError::new(ErrorCode::Io, format!("the kernel keyring: {e:?}"))
    }

    fn absent(e: &KeyError) -> bool {
        matches!(
            e,
            KeyError::KeyDoesNotExist | KeyError::KeyRevoked | KeyError::KeyExpired
        )
    }

    pub fn get(url: &str) -> Result<Option<String>, ApiError> {
        match keyring().and_then(|r| r.search(&description(url))) {
            Ok(key) => {
                let bytes = key.read_to_vec().map_err(error)?;
                Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
            }
            Err(e) if absent(&e) => Ok(None),
            Err(e) => Err(error(e)),
        }
    }

    pub fn set(url: &str, token: &str) -> Result<(), ApiError> {
        // add_key replaces a key of the same description in that keyring.
        keyring()
            .and_then(|r| r.add_key(&description(url), token.as_bytes()))
            .map(|_| ())
            .map_err(error)
    }

    pub fn delete(url: &str) -> Result<(), ApiError> {
        match keyring().and_then(|r| r.search(&description(url))) {
            Ok(key) => key.invalidate().map_err(error),
            Err(e) if absent(&e) => Ok(()),
            Err(e) => Err(error(e)),
        }
    }
}
