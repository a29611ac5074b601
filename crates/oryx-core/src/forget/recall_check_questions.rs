//! Recall checks (`<index dir>/recall-checks/*.json`) whose question holds a forgotten text: a
//! question asking for the secret would keep it, so the check goes (its expected entries are
//! ids, hashes of lines, never text). A file is rewritten only when one of its checks goes.

use std::path::Path;

use super::{json_files, replace_own_file};
use crate::error::{CoreError, Result};
use crate::forget::{Copies, Erased, Needles, Place};
use crate::recall_checks::{RecallChecks, Saved};

/// The checks whose question holds a needle, counted and, with `write`, removed.
pub(super) fn forget(index_dir: &Path, needles: &Needles, write: bool) -> Result<Erased> {
    let mut out = Erased::default();
    let dir = RecallChecks::new(index_dir).dir().to_path_buf();
    for path in json_files(&dir) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(mut saved) = serde_json::from_slice::<Saved>(&bytes) else {
            continue;
        };
        let before = saved.checks.len();
        saved.checks.retain(|c| !needles.in_text(&c.question));
        let count = before - saved.checks.len();
        if count == 0 {
            continue;
        }
        if write {
            let bytes = serde_json::to_vec_pretty(&saved)
                .map_err(|e| CoreError::Corrupt(format!("{}: {e}", path.display())))?;
            replace_own_file(&path, &bytes)?;
        }
        out.erased.push(Copies::new(
            Place::ReviewMarks,
            path,
            count,
            Some("recall_checks".into()),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall_checks::RecallCheck;

    fn check(id: &str, question: &str) -> RecallCheck {
        RecallCheck {
            id: id.into(),
            question: question.into(),
            expect: vec!["a1-3f9c0b1e".into()],
            created: 1,
            last: None,
            last_passed: None,
        }
    }

    #[test]
    fn a_check_asking_for_the_text_goes_and_the_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecallChecks::new(dir.path());
        let saved = Saved {
            checks: vec![check("k1", "key sk-forget-1?"), check("k2", "住在哪")],
        };
        store.save("src", &saved).unwrap();
        let needles = Needles::new(["sk-forget-1".to_string()]);
        let found = forget(dir.path(), &needles, false).unwrap();
        assert_eq!(found.erased.len(), 1);
        assert_eq!(found.erased[0].count, 1);
        assert_eq!(store.load("src").unwrap(), saved, "finding changes nothing");
        forget(dir.path(), &needles, true).unwrap();
        let left = store.load("src").unwrap();
        assert_eq!(left.checks, vec![check("k2", "住在哪")]);
        assert!(!std::fs::read_to_string(store.file("src"))
            .unwrap()
            .contains("sk-forget-1"));
        assert!(forget(dir.path(), &needles, false)
            .unwrap()
            .erased
            .is_empty());
    }
}
