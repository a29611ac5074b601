//! The HTTP client every request to a remote console starts from.

use std::time::Duration;

use reqwest::blocking::{Client, ClientBuilder};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) fn builder(timeout: Option<Duration>) -> ClientBuilder {
    Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(timeout)
        // The token must never follow a redirect to somewhere else.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("oryx-console/", env!("CARGO_PKG_VERSION")))
}
