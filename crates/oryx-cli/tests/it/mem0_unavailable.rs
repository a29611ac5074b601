//! A mem0 service that is dead or hung, through the CLI: one line naming the base URL and what
//! went wrong, within the timeout. (The same over REST: oryx-server's tests.)

use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::hostile_root::Env;
use crate::common::{self, OryxOn};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn mem0_settings(env: &Env, url: &str, timeout_ms: u64) {
    env.settings(common::mem0::settings(url, timeout_ms));
}

fn assert_cli_mem0_failure(out: &Output, code: &str, url: &str, bound: Duration, took: Duration) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with(&format!("error[{code}]: ")), "{err}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains(url), "names the base URL: {err}");
    assert!(took <= bound, "took {took:?}, bound {bound:?}");
}

#[test]
fn cli_reports_a_dead_or_hung_mem0_in_one_line_within_the_timeout() {
    let env = Env::new();
    let dead = common::mem0::unreachable_url();
    let timeout = Duration::from_millis(1500);
    mem0_settings(&env, "http://127.0.0.1:9", timeout.as_millis() as u64);
    for args in [
        vec![
            "memory",
            "add",
            "--agent",
            "assistant",
            "--scope",
            "core",
            "must not vanish",
        ],
        vec!["memory", "add", "--scope", "archival", "must not vanish"],
        vec!["memory", "show", "--agent", "assistant"],
        vec!["memory", "context", "--agent", "assistant"],
        vec!["memory", "recall", "--agent", "assistant", "x"],
    ] {
        let mut all = vec!["--backend", "mem0", "--mem0-url", dead.as_str()];
        all.extend_from_slice(&args);
        let t = Instant::now();
        let out = env.oryx(&all);
        let took = t.elapsed();
        assert_cli_mem0_failure(
            &out,
            "backend_unavailable",
            &dead,
            timeout + Duration::from_secs(2),
            took,
        );
        assert!(stderr(&out).contains("unreachable"), "{}", stderr(&out));
        eprintln!("cli {:?} on a closed port: {took:?}", args[..2].join(" "));
    }
    let hung_server = common::mem0::Hung::start();
    let hung = hung_server.url.clone();
    for args in [
        vec![
            "memory",
            "add",
            "--agent",
            "assistant",
            "--scope",
            "core",
            "must not vanish",
        ],
        vec!["memory", "show", "--agent", "assistant"],
    ] {
        let mut all = vec!["--backend", "mem0", "--mem0-url", hung.as_str()];
        all.extend_from_slice(&args);
        let t = Instant::now();
        let out = env.oryx(&all);
        let took = t.elapsed();
        assert_cli_mem0_failure(
            &out,
            "timeout",
            &hung,
            timeout + Duration::from_secs(2),
            took,
        );
        assert!(took >= timeout - Duration::from_millis(100), "{took:?}");
        eprintln!("cli {:?} on a hung server: {took:?}", args[..2].join(" "));
    }
    // The run path reports a failed save too (the tool answers with an error, exit 1).
    let t = Instant::now();
    let out = env.oryx(&[
        "--backend",
        "mem0",
        "--mem0-url",
        &dead,
        "--json",
        "tool",
        "save_memory",
        "--input",
        r#"{"content":"must not vanish"}"#,
    ]);
    assert!(t.elapsed() <= timeout + Duration::from_secs(2));
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        (stdout(&out) + &stderr(&out)).contains(&dead),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}
