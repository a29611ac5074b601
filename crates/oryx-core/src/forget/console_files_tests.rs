use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::*;
use crate::embed::{store_path, VectorStore, DIM};
use crate::error::CoreError;
use crate::memory::curation::{Action, Target};
use crate::memory::review::{dismiss_key, entry_key_of, Reviews};
use crate::memory::{LongTermMemoryStore, MarkdownMemoryStore, MemoryService};

const SECRET: &str = "sk-LIVE-4242-do-not-keep";

struct Bed {
    _dir: tempfile::TempDir,
    root: PathBuf,
    index: PathBuf,
    store: Arc<MarkdownMemoryStore>,
    svc: MemoryService,
    owner: Owner,
}

fn bed() -> Bed {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("agents").join("a")).unwrap();
    let index = dir.path().join("index");
    std::fs::create_dir_all(&index).unwrap();
    let store = Arc::new(MarkdownMemoryStore::new(&root));
    let svc = MemoryService::new(store.clone(), 100_000);
    Bed {
        _dir: dir,
        root,
        index,
        store,
        svc,
        owner: Owner::Agent("a".into()),
    }
}

impl Bed {
    fn files(&self) -> ConsoleFiles {
        ConsoleFiles {
            root: self.root.clone(),
            db: None,
            index_dir: Some(self.index.clone()),
            owners: Some(vec![self.owner.clone()]),
            entries: Vec::new(),
        }
    }

    fn id_of(&self, content: &str) -> String {
        let all = self.store.load_all(&self.owner).unwrap();
        let i = all
            .archival
            .iter()
            .position(|e| e.content == content)
            .unwrap();
        all.id(Scope::Archival, i).unwrap()
    }

    fn change(&self, content: &str, action: Action) -> String {
        let id = self.id_of(content);
        let target = Target {
            id,
            expect: Some(content.into()),
        };
        self.svc.change(&self.owner, &[target], &action).unwrap().id
    }

    fn history(&self) -> PathBuf {
        crate::memory::history::history_path(&names::memory_path(&self.root, &self.owner))
    }
}

/// A vector as the model makes them (of length one).
fn unit(i: usize) -> crate::embed::Vector {
    let mut v = [0.0; DIM];
    v[i] = 1.0;
    v
}

fn edit(content: &str) -> Action {
    Action::Edit {
        content: content.into(),
        restamp: false,
    }
}

/// Every file under the folders, with its bytes and modification time.
fn snapshot(dirs: &[&Path]) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut todo: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                todo.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.insert(p, (bytes, meta.modified().unwrap()));
            }
        }
    }
    out
}

fn holding(snap: &BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)>, text: &str) -> Vec<PathBuf> {
    snap.iter()
        .filter(|(_, (b, _))| memchr::memmem::find(b, text.as_bytes()).is_some())
        .map(|(p, _)| p.clone())
        .collect()
}

fn count(found: &[Copies], place: Place) -> usize {
    found
        .iter()
        .filter(|c| c.place == place)
        .map(|c| c.count)
        .sum()
}

/// The secret planted through the console's own paths: appended, edited away (the history
/// keeps the before), appended again and deleted, journalled, embedded and reviewed.
#[test]
fn a_secret_in_every_console_file_is_found_then_gone_and_the_rest_kept() {
    let b = bed();
    let o = b.owner.clone();
    for c in [
        "note one",
        &format!("api key {SECRET} for the bot"),
        "note two",
    ] {
        b.store.append(&o, Scope::Archival, c, None).unwrap();
    }
    let stamp = b.store.load_all(&o).unwrap().archival[1].timestamp;
    let kept_edit = b.change("note one", edit("note one, edited"));
    b.change(
        &format!("api key {SECRET} for the bot"),
        edit("api key rotated"),
    );
    b.store
        .append(&o, Scope::Archival, &format!("{SECRET} again"), None)
        .unwrap();
    b.change(&format!("{SECRET} again"), Action::Delete);

    // The console's vector file, as an index over these entries would hold it.
    let vectors = store_path(&b.index, &b.root);
    {
        let mut vs = VectorStore::open(&vectors, "test-model").unwrap();
        let line = b.store.load_all(&o).unwrap().archival[0].line.clone();
        vs.put(
            "a",
            &[
                (format!("a:- [x] api key {SECRET} for the bot"), 1, unit(0)),
                (format!("a:{line}"), 2, unit(1)),
            ],
        )
        .unwrap();
    }
    // Reviewed, and a finding dismissed, on the secret's entry and on another.
    let key = entry_key_of(
        Scope::Archival,
        stamp,
        &format!("api key {SECRET} for the bot"),
    );
    Reviews::new(&b.index).mark("src", vec![key, 42]).unwrap();
    Reviews::dismissals(&b.index)
        .mark("src", vec![dismiss_key("secrets", key), 7])
        .unwrap();

    let before = snapshot(&[&b.root, &b.index]);
    let history_before = std::fs::read_to_string(b.history()).unwrap();
    let journal_lines = before
        .iter()
        .find(|(p, _)| p.to_string_lossy().ends_with(".oryx-journal"))
        .map(|(_, (bytes, _))| {
            String::from_utf8_lossy(bytes)
                .lines()
                .filter(|l| l.contains(SECRET))
                .count()
        })
        .unwrap();
    assert!(journal_lines >= 2, "the journal holds the writes");

    let needles = Needles::new([SECRET.to_string()]);
    let found = find(&b.files(), &needles).unwrap();
    assert_eq!(count(&found, Place::History), 2, "{found:?}");
    assert_eq!(count(&found, Place::Journal), journal_lines, "{found:?}");
    assert_eq!(count(&found, Place::ConsoleIndex), 1, "{found:?}");
    assert_eq!(count(&found, Place::ReviewMarks), 2, "{found:?}");
    let history = found.iter().find(|c| c.place == Place::History).unwrap();
    assert_eq!(history.path, b.history());
    let index = found
        .iter()
        .find(|c| c.place == Place::ConsoleIndex)
        .unwrap();
    assert_eq!(index.path, vectors);
    assert_eq!(
        snapshot(&[&b.root, &b.index]),
        before,
        "find changes nothing"
    );

    let erased = erase(&b.files(), &needles, &AtomicBool::new(false)).unwrap();
    assert_eq!(erased.erased, found);
    assert!(erased.left.is_empty(), "{:?}", erased.left);
    let after = snapshot(&[&b.root, &b.index]);
    assert_eq!(holding(&after, SECRET), Vec::<PathBuf>::new());
    // Files that held nothing of it and were not listed are untouched (MEMORY.md is the
    // memory part's; a listed SQLite file's -shm moves with it).
    let listed = |p: &Path| {
        found.iter().any(|c| {
            p.to_string_lossy()
                .starts_with(c.path.to_string_lossy().as_ref())
        })
    };
    for (p, v) in &before {
        if !holding(&before, SECRET).contains(p) && !p.ends_with("MEMORY.md") && !listed(p) {
            assert_eq!(after.get(p), Some(v), "{} changed", p.display());
        }
    }
    // Every other history record keeps its bytes; the tombstones keep their place.
    let history_after = std::fs::read_to_string(b.history()).unwrap();
    let (old, new): (Vec<&str>, Vec<&str>) = (
        history_before.lines().collect(),
        history_after.lines().collect(),
    );
    assert_eq!(old.len(), new.len());
    for (o, n) in old.iter().zip(&new) {
        if !o.contains(SECRET) {
            assert_eq!(o, n);
        } else {
            assert!(n.contains("\"forgotten\":{"), "{n}");
        }
    }
    // The history still reads; the tombstones are listed as forgotten, with their sizes.
    let view = b.svc.history(&o, None).unwrap();
    let stones: Vec<&crate::memory::history::Change> = view
        .changes
        .iter()
        .map(|l| &l.change)
        .filter(|c| c.forgotten.is_some())
        .collect();
    assert_eq!(stones.len(), 2);
    for s in &stones {
        assert!(s.entries.is_empty() && s.splices.is_empty());
        let f = s.forgotten.as_ref().unwrap();
        assert_eq!(f.entries.len(), 1);
        assert!(f.entries[0].before.unwrap() > SECRET.len() as u64);
    }
    // A forgotten change is never taken back; the others still are.
    let stone = stones[0].id.clone();
    assert!(matches!(
        b.svc.undo(&o, Some(&stone)),
        Err(CoreError::Forgotten(id)) if id == stone
    ));
    assert!(matches!(b.svc.undo(&o, None), Err(CoreError::Forgotten(_))));
    assert!(matches!(
        b.svc.restore(&o, &stone, "whatever"),
        Err(CoreError::Forgotten(_))
    ));
    b.svc.undo(&o, Some(&kept_edit)).unwrap();
    // The marks of other entries stay.
    assert_eq!(
        Reviews::new(&b.index).load("src").unwrap().unwrap().keys,
        [42]
    );
    assert_eq!(
        Reviews::dismissals(&b.index)
            .load("src")
            .unwrap()
            .unwrap()
            .keys,
        [7]
    );
    // The vector file keeps the other row.
    let mut vs = VectorStore::open(&vectors, "test-model").unwrap();
    assert_eq!(vs.len("a").unwrap(), 1);
}

/// A forget of a text found nowhere changes no byte and no time of any file.
#[test]
fn a_needle_found_nowhere_changes_nothing() {
    let b = bed();
    let o = b.owner.clone();
    b.store
        .append(&o, Scope::Archival, "note one", None)
        .unwrap();
    b.change("note one", edit("note one, edited"));
    {
        let mut vs = VectorStore::open(&store_path(&b.index, &b.root), "test-model").unwrap();
        vs.put("a", &[("a:- note".into(), 1, unit(0))]).unwrap();
    }
    Reviews::new(&b.index).mark("src", vec![1, 2]).unwrap();
    let before = snapshot(&[&b.root, &b.index]);
    let needles = Needles::new(["appears nowhere at all".to_string()]);
    assert!(find(&b.files(), &needles).unwrap().is_empty());
    let erased = erase(&b.files(), &needles, &AtomicBool::new(false)).unwrap();
    assert_eq!(erased, Erased::default());
    assert_eq!(snapshot(&[&b.root, &b.index]), before);
}

/// The journal puts back a console write that a racing rewrite dropped; once its record is
/// forgotten, a forgotten line is never put back.
#[test]
fn the_journal_never_puts_a_forgotten_line_back() {
    for forget_it in [false, true] {
        let b = bed();
        let o = b.owner.clone();
        let path = names::memory_path(&b.root, &o);
        b.store
            .append(&o, Scope::Archival, "note one", None)
            .unwrap();
        b.store
            .append(&o, Scope::Archival, &format!("api key {SECRET}"), None)
            .unwrap();
        // A rewrite by someone else (the runtime's rename) without the line.
        let text = std::fs::read_to_string(&path).unwrap();
        let without: String = text
            .lines()
            .filter(|l| !l.contains(SECRET))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&path, without).unwrap();
        if forget_it {
            let needles = Needles::new([SECRET.to_string()]);
            erase(&b.files(), &needles, &AtomicBool::new(false)).unwrap();
        }
        // The next console write checks the journal first.
        b.store
            .append(&o, Scope::Archival, "note two", None)
            .unwrap();
        let now = std::fs::read_to_string(&path).unwrap();
        assert_eq!(now.contains(SECRET), !forget_it, "{now}");
    }
}

/// A tombstone in a history that a torn record follows, and a record the needle reaches only
/// escaped in JSON, are handled; the history still parses.
#[test]
fn escaped_needles_and_torn_records_are_forgotten_too() {
    let b = bed();
    let o = b.owner.clone();
    let quoted = "say \"open sesame\" now";
    b.store.append(&o, Scope::Archival, quoted, None).unwrap();
    b.change(quoted, Action::Delete);
    let h = b.history();
    let mut f = std::fs::OpenOptions::new().append(true).open(&h).unwrap();
    std::io::Write::write_all(&mut f, br#"{"state":"intent","id":"t","op":"edit","owner":"a","entries":[{"before":{"content":"say \"open sesame"#).unwrap();
    drop(f);
    let needles = Needles::new([quoted.to_string(), "\"open sesame".to_string()]);
    let found = find(&b.files(), &needles).unwrap();
    assert_eq!(count(&found, Place::History), 2, "{found:?}");
    erase(&b.files(), &needles, &AtomicBool::new(false)).unwrap();
    let text = std::fs::read_to_string(&h).unwrap();
    assert!(!text.contains("open sesame"), "{text}");
    let view = b.svc.history(&o, None).unwrap();
    assert_eq!(view.changes.len(), 1);
    assert!(view.changes[0].change.forgotten.is_some());
}
