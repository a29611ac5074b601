//! Tests that need a process of their own (a file-size limit, a writer to kill) re-run this
//! test binary as a child, selecting one ignored test by name.

/// The name the test harness gives test `f` of `module` (a `module_path!()`): the tests that
/// re-run this binary as a child process select one test with it, whatever module it is in.
pub fn test_name(module: &str, f: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{f}"),
        None => f.to_string(),
    }
}

/// Writes beyond `bytes` fail with EFBIG (SIGXFSZ ignored): the partial write of a full disk.
#[cfg(unix)]
pub fn set_file_size_limit(bytes: u64) {
    // SAFETY: plain libc calls with valid arguments; only a dedicated child process calls this.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut lim), 0);
        lim.rlim_cur = bytes as libc::rlim_t;
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
    }
}

/// Back to the hard limit (unchanged).
#[cfg(unix)]
pub fn lift_file_size_limit() {
    // SAFETY: as above; the soft limit goes back up to the (unchanged) hard limit.
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut lim), 0);
        lim.rlim_cur = lim.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
    }
}
