//! Importing hostile `oryx-export` archives: members a runtime would replay (a WAL,
//! a journal), declared sizes that lie (zip64 1 TiB, 2^64-1), a deflate bomb, names with a NUL,
//! folders of the target that are links or files, two agents mapped onto one name, and a
//! history that would attach to the target's own memory. Each is refused (or dropped) before
//! anything is written, in a dry run as in a real one, and nothing lands outside the root.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use oryx_core::error::CoreError;
use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore, Scope};
use oryx_core::names::Owner;
use oryx_core::portable::import::{import, ImportOptions, ImportReport, MAX_MEMBER_BYTES};
use oryx_core::portable::{
    sha256_hex, EntryLine, FileManifest, LinkManifest, Manifest, OwnerManifest,
};

const AGENT_MD: &str = "---\nname: bot\nbootstrap: [USER.md]\n---\nBody.\n";

fn never() -> AtomicBool {
    AtomicBool::new(false)
}

fn entries(owner: &str, n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        let line = EntryLine {
            owner: owner.to_string(),
            scope: Scope::Archival,
            timestamp: Some(format!("2024-01-01 10:00:{i:02}")),
            content: format!("{owner} fact {i}"),
        };
        serde_json::to_writer(&mut out, &line).unwrap();
        out.push(b'\n');
    }
    out
}

fn memory_md(owner: &str, n: usize) -> Vec<u8> {
    let mut s = String::from("## 核心记忆\n## 归档记忆\n");
    for i in 0..n {
        s.push_str(&format!("- [2024-01-01 10:00:{i:02}] {owner} fact {i}\n"));
    }
    s.into_bytes()
}

/// An archive as an export writes it, from its members (`entries/<o>.jsonl` for each owner
/// added here), with a true manifest; `extra` members are listed in the manifest too.
struct Archive {
    owners: Vec<String>,
    members: Vec<(String, Vec<u8>)>,
    links: Vec<LinkManifest>,
}

impl Archive {
    fn new() -> Archive {
        Archive {
            owners: Vec::new(),
            members: Vec::new(),
            links: Vec::new(),
        }
    }

    /// An agent with `n` entries, its AGENT.md and MEMORY.md.
    fn agent(mut self, name: &str, n: usize) -> Archive {
        self.owners.push(name.to_string());
        self.members
            .push((format!("entries/{name}.jsonl"), entries(name, n)));
        self.members.push((
            format!("files/agents/{name}/AGENT.md"),
            AGENT_MD.replace("bot", name).into_bytes(),
        ));
        self.members
            .push((format!("files/agents/{name}/MEMORY.md"), memory_md(name, n)));
        self
    }

    fn member(mut self, name: &str, bytes: &[u8]) -> Archive {
        self.members.push((name.to_string(), bytes.to_vec()));
        self
    }

    fn manifest(&self) -> Manifest {
        Manifest {
            format: "oryx-export".into(),
            version: 1,
            created: "2024-01-01 10:00:00".into(),
            source_backend: "markdown".into(),
            owners: self
                .owners
                .iter()
                .map(|o| OwnerManifest {
                    owner: o.clone(),
                    core: 0,
                    archival: 0,
                })
                .collect(),
            files: self
                .members
                .iter()
                .map(|(n, b)| FileManifest {
                    path: n.clone(),
                    bytes: b.len() as u64,
                    sha256: sha256_hex(b),
                })
                .collect(),
            links: self.links.clone(),
            sessions: false,
            history: false,
        }
    }

    fn write(&self, path: &Path) -> PathBuf {
        let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        let opts = zip::write::SimpleFileOptions::default();
        for (name, bytes) in &self.members {
            w.start_file(name.as_str(), opts).unwrap();
            w.write_all(bytes).unwrap();
        }
        w.start_file("manifest.json", opts).unwrap();
        w.write_all(&serde_json::to_vec(&self.manifest()).unwrap())
            .unwrap();
        w.finish().unwrap();
        path.to_path_buf()
    }
}

fn new_root(dir: &Path) -> PathBuf {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("agents")).unwrap();
    root
}

/// Every path below `dir` (links not followed) with its bytes (a link: its target).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.file_type().is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.insert(rel, t.display().to_string().into_bytes());
            } else if m.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(base, &p, out);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn run(archive: &Path, root: &Path, o: &ImportOptions) -> Result<ImportReport, CoreError> {
    let store = MarkdownMemoryStore::new(root);
    import(archive, root, &store, o, &never(), &mut |_| {})
}

fn dry() -> ImportOptions {
    ImportOptions {
        dry_run: true,
        ..ImportOptions::default()
    }
}

fn overwrite() -> ImportOptions {
    ImportOptions {
        overwrite_files: true,
        ..ImportOptions::default()
    }
}

/// Both a dry run and a real one (with overwrite) refuse `archive` with an error saying
/// `why`, and the target is as it was.
fn refused_both_ways(archive: &Path, root: &Path, why: &str) {
    let before = tree(root);
    for o in [dry(), ImportOptions::default(), overwrite()] {
        let e = run(archive, root, &o).expect_err("refused");
        assert!(e.to_string().contains(why), "{why:?} not in: {e}");
        assert_eq!(tree(root), before, "nothing written ({o:?})");
    }
}

#[test]
fn database_files_and_sidecars_in_an_archive_are_refused_as_a_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = new_root(dir.path());
    let hostile = [
        "files/oryxos.db",
        "files/oryxos.db-wal",
        "files/oryxos.db-journal",
        "files/oryxos.db-shm",
        "files/oryxos.db.oryx-history",
        "files/USER.md.oryx-history",
        "files/.USER.md",
        "files/notes.txt",
        "files/agents",
        "files/agents/bot/AGENT.md.oryx-history",
        "files/agents/bot/.MEMORY.md.lock",
        "files/agents/bot/skills/s/SKILL.md",
        "files/memory/AGENT.md",
        "files/skills/s/.ssh/authorized_keys",
        "files/skills/s/data.db",
        "files/skills/s/x-wal",
        "files/skills/s/../../oryxos.db",
        "files/skills/s//SKILL.md",
        "files/skills/.s/SKILL.md",
        "files/skills/s/SKILL.md.oryx-history",
        "other/file.md",
    ];
    for (i, name) in hostile.iter().enumerate() {
        let archive = Archive::new()
            .agent("bot", 2)
            .member("files/USER.md", b"user")
            .member(name, b"SQLite format 3\0 hostile")
            .write(&dir.path().join(format!("{i}.oryx.zip")));
        refused_both_ways(&archive, &root, "a path an export never writes");
    }
    // A bootstrap file no AGENT.md of the archive names (the runtime would never read it),
    // even a markdown one; and one an AGENT.md names that is not a markdown file.
    let archive = Archive::new()
        .agent("bot", 1)
        .member("files/EXTRA.md", b"x")
        .write(&dir.path().join("extra.oryx.zip"));
    refused_both_ways(&archive, &root, "a path an export never writes");
    let archive = Archive {
        members: vec![
            ("entries/bot.jsonl".into(), entries("bot", 1)),
            (
                "files/agents/bot/AGENT.md".into(),
                b"---\nname: bot\nbootstrap: [oryxos.db-wal, USER.md]\n---\n".to_vec(),
            ),
            ("files/oryxos.db-wal".into(), b"WAL".to_vec()),
        ],
        owners: vec!["bot".into()],
        links: Vec::new(),
    }
    .write(&dir.path().join("listed.oryx.zip"));
    refused_both_ways(&archive, &root, "a path an export never writes");
    // What an export writes goes in.
    let archive = Archive::new()
        .agent("bot", 2)
        .member("files/USER.md", b"user")
        .member("files/skills/s/SKILL.md", b"---\nname: s\n---\n")
        .member("files/skills/s/scripts/run.sh", b"echo")
        .write(&dir.path().join("ok.oryx.zip"));
    let r = run(&archive, &root, &ImportOptions::default()).unwrap();
    assert_eq!(
        r.files_written,
        [
            "USER.md",
            "agents/bot/AGENT.md",
            "skills/s/SKILL.md",
            "skills/s/scripts/run.sh",
            "agents/bot/MEMORY.md",
        ],
        "{r:?}"
    );
    assert!(!root.join("oryxos.db-wal").exists());
}

/// Raw deflate of `data`, and its CRC-32.
fn deflate(data: &[u8]) -> (Vec<u8>, u32) {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    let mut crc = flate2::Crc::new();
    crc.update(data);
    (e.finish().unwrap(), crc.sum())
}

/// A zip written by hand: each member deflated, with `declared` as its uncompressed size in a
/// zip64 extra field (the data stays what it is), so the headers can lie.
fn crafted_zip(members: &[(&str, Vec<u8>, Option<u64>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data, declared) in members {
        let (packed, crc) = deflate(data);
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&45u16.to_le_bytes()); // made by
            }
            h.extend_from_slice(&45u16.to_le_bytes()); // needed
            h.extend_from_slice(&0u16.to_le_bytes()); // flags
            h.extend_from_slice(&8u16.to_le_bytes()); // deflate
            h.extend_from_slice(&0u32.to_le_bytes()); // time, date
            h.extend_from_slice(&crc.to_le_bytes());
            let extra: Vec<u8> = match declared {
                Some(d) => {
                    h.extend_from_slice(&u32::MAX.to_le_bytes());
                    h.extend_from_slice(&u32::MAX.to_le_bytes());
                    let mut x = Vec::new();
                    x.extend_from_slice(&1u16.to_le_bytes());
                    x.extend_from_slice(&16u16.to_le_bytes());
                    x.extend_from_slice(&d.to_le_bytes());
                    x.extend_from_slice(&(packed.len() as u64).to_le_bytes());
                    x
                }
                None => {
                    h.extend_from_slice(&(packed.len() as u32).to_le_bytes());
                    h.extend_from_slice(&(data.len() as u32).to_le_bytes());
                    Vec::new()
                }
            };
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            if central {
                h.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
                h.extend_from_slice(&0u32.to_le_bytes()); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h.extend_from_slice(&extra);
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend_from_slice(&packed);
        central.extend(header(0x0201_4b50, true));
    }
    let start = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Runs an import on its own thread: a panic there is a failure of this test, not a crash.
fn import_on_thread(archive: PathBuf, root: PathBuf) -> Result<ImportReport, String> {
    std::thread::spawn(move || run(&archive, &root, &ImportOptions::default()))
        .join()
        .map_err(|_| "the import panicked".to_string())?
        .map_err(|e| e.to_string())
}

#[test]
fn declared_sizes_of_zip64_members_are_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let root = new_root(dir.path());
    let honest = Archive::new().agent("bot", 1);
    let manifest = serde_json::to_vec(&honest.manifest()).unwrap();
    for declared in [1u64 << 40, u64::MAX] {
        // The manifest declares 1 TiB / 2^64-1 in its zip64 header.
        let mut members: Vec<(&str, Vec<u8>, Option<u64>)> = honest
            .members
            .iter()
            .map(|(n, b)| (n.as_str(), b.clone(), None))
            .collect();
        members.push(("manifest.json", manifest.clone(), Some(declared)));
        let path = dir.path().join(format!("m{declared}.zip"));
        std::fs::write(&path, crafted_zip(&members)).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 2048);
        let e = import_on_thread(path, root.clone()).expect_err("refused");
        println!("manifest.json declared {declared}: {e}");
        assert!(e.contains("manifest.json in the archive is"), "{e}");
        // A member declares it in its header; the manifest says what it holds.
        let mut members: Vec<(&str, Vec<u8>, Option<u64>)> = honest
            .members
            .iter()
            .map(|(n, b)| {
                let lie = n.ends_with("AGENT.md").then_some(declared);
                (n.as_str(), b.clone(), lie)
            })
            .collect();
        members.push(("manifest.json", manifest.clone(), None));
        let path = dir.path().join(format!("f{declared}.zip"));
        std::fs::write(&path, crafted_zip(&members)).unwrap();
        let e = import_on_thread(path, root.clone()).expect_err("refused");
        println!("AGENT.md declared {declared} in its header: {e}");
        assert!(e.contains("AGENT.md: the archive's header says"), "{e}");
        // And the manifest declares it too.
        let mut lying = honest.manifest();
        for f in &mut lying.files {
            if f.path.ends_with("AGENT.md") {
                f.bytes = declared;
            }
        }
        members.pop();
        members.push(("manifest.json", serde_json::to_vec(&lying).unwrap(), None));
        let path = dir.path().join(format!("b{declared}.zip"));
        std::fs::write(&path, crafted_zip(&members)).unwrap();
        let e = import_on_thread(path, root.clone()).expect_err("refused");
        println!("AGENT.md declared {declared} in the manifest: {e}");
        assert!(e.contains("an import reads per member"), "{e}");
        assert!(!root.join("agents/bot").exists());
    }
}

/// A raw deflate stream of `mib` MiB of zeros that is about `mib` KiB itself: one block for
/// 1 MiB of zeros (a sync flush ends it on a byte, not final) said again and again.
fn bomb(mib: usize) -> (Vec<u8>, u32) {
    let zeros = vec![0u8; 1 << 20];
    let mut c = flate2::Compress::new(flate2::Compression::best(), false);
    let mut block = Vec::with_capacity(1 << 20);
    c.compress_vec(&zeros, &mut block, flate2::FlushCompress::Sync)
        .unwrap();
    let mut end = Vec::with_capacity(64);
    c.compress_vec(&[], &mut end, flate2::FlushCompress::Finish)
        .unwrap();
    let mut out = Vec::with_capacity(block.len() * mib + end.len());
    let mut one = flate2::Crc::new();
    one.update(&zeros);
    let mut crc = flate2::Crc::new();
    for _ in 0..mib {
        out.extend_from_slice(&block);
        crc.combine(&one);
    }
    out.extend_from_slice(&end);
    (out, crc.sum())
}

/// A stored zip member (method 8) whose data is `packed` as given.
fn zip_with_raw(members: &[(&str, &[u8], u32, u64)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, packed, crc, size) in members {
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            h.extend_from_slice(&20u16.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(&8u16.to_le_bytes());
            h.extend_from_slice(&0u32.to_le_bytes());
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(packed.len() as u32).to_le_bytes());
            h.extend_from_slice(&(*size as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central {
                h.extend_from_slice(&[0; 6]);
                h.extend_from_slice(&0u32.to_le_bytes());
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend_from_slice(packed);
        central.extend(header(0x0201_4b50, true));
    }
    let start = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// The peak resident memory of this process so far (Linux), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_deflate_bomb_is_refused_without_inflating_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = new_root(dir.path());
    let (packed, crc) = bomb(1024);
    let gib = 1u64 << 30;
    assert!(packed.len() < 1_200_000, "{}", packed.len());
    // The bomb is real: it inflates to 1 GiB.
    let mut d = flate2::read::DeflateDecoder::new(&packed[..]);
    assert_eq!(std::io::copy(&mut d, &mut std::io::sink()).unwrap(), gib);
    let before = peak_rss_kib();
    let base = Archive::new().agent("bot", 1);
    let mut cases = Vec::new();
    // Declared as it is (1 GiB), in the zip header and the manifest; declared 1 KiB in both
    // (the inflation goes on past it); and two members of 200 MiB (each under the cap) in a
    // small archive.
    for (declared, path) in [(gib, "files/memory/MEMORY.md"), (1024, "files/USER.md")] {
        let mut m = base.manifest();
        m.files.push(FileManifest {
            path: path.into(),
            bytes: declared,
            sha256: "0".repeat(64),
        });
        cases.push((vec![(path, declared)], m));
    }
    let mut m = base.manifest();
    let two = [
        ("files/USER.md", 200u64 << 20),
        ("files/SOUL.md", 200 << 20),
    ];
    for (p, n) in two {
        m.files.push(FileManifest {
            path: p.into(),
            bytes: n,
            sha256: "0".repeat(64),
        });
    }
    cases.push((two.to_vec(), m));
    let (p200, c200) = bomb(200);
    for (i, (bombs, manifest)) in cases.into_iter().enumerate() {
        let json = serde_json::to_vec(&manifest).unwrap();
        let packed_members: Vec<(Vec<u8>, u32)> = base
            .members
            .iter()
            .map(|(_, b)| deflate(b))
            .chain(std::iter::once(deflate(&json)))
            .collect();
        let mut members: Vec<(&str, &[u8], u32, u64)> = Vec::new();
        for ((name, b), (p, c)) in base.members.iter().zip(&packed_members) {
            members.push((name, p, *c, b.len() as u64));
        }
        let last = packed_members.last().unwrap();
        members.push(("manifest.json", &last.0, last.1, json.len() as u64));
        for (name, declared) in &bombs {
            if *declared == 200 << 20 {
                members.push((name, &p200, c200, *declared));
            } else {
                members.push((name, &packed, crc, (*declared).min(u32::MAX as u64)));
            }
        }
        let path = dir.path().join(format!("bomb{i}.zip"));
        std::fs::write(&path, zip_with_raw(&members)).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        let started = std::time::Instant::now();
        let e = run(&path, &root, &ImportOptions::default()).expect_err("refused");
        println!(
            "bomb {i}: archive {size} bytes, refused in {:?}: {e}",
            started.elapsed()
        );
        let msg = e.to_string();
        match i {
            0 => assert!(
                msg.contains("files/memory/MEMORY.md")
                    && msg.contains(&format!("{}.0 MiB", MAX_MEMBER_BYTES >> 20)),
                "{msg}"
            ),
            1 => assert!(msg.contains("files/USER.md"), "{msg}"),
            _ => assert!(msg.contains("more than the"), "{msg}"),
        }
        assert!(!root.join("memory").exists() && !root.join("USER.md").exists());
    }
    if let (Some(b), Some(a)) = (before, peak_rss_kib()) {
        println!("peak RSS before the imports {b} KiB, after {a} KiB");
        assert!(a < b + 64 * 1024, "the imports took {} KiB", a - b);
    }
}

#[cfg(unix)]
#[test]
fn linked_folders_of_the_target_receive_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new()
        .agent("bot", 2)
        .member("files/memory/MEMORY.md", &memory_md("g", 1))
        .member("files/skills/s/SKILL.md", b"---\nname: s\n---\n")
        .member(
            "files/skills/s/sub/authorized_keys",
            b"ssh-ed25519 attacker",
        )
        .write(&dir.path().join("a.oryx.zip"));
    let mut with_link = Archive::new()
        .agent("bot", 2)
        .member("files/skills/s/SKILL.md", b"---\nname: s\n---\n");
    with_link.links.push(LinkManifest {
        path: "agents/bot/skills/s".into(),
        target: "../../../skills/s".into(),
    });
    let linked = with_link.write(&dir.path().join("l.oryx.zip"));
    for (i, (link, archive)) in [
        ("agents/bot", &archive),
        ("memory", &archive),
        ("skills/s", &archive),
        ("skills/s/sub", &archive),
        ("skills", &archive),
        ("agents", &archive),
        ("agents/bot/skills", &linked),
    ]
    .into_iter()
    .enumerate()
    {
        let case = dir.path().join(format!("case{i}"));
        let root = new_root(&case);
        let outside = case.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let at = root.join(link);
        if at.exists() {
            std::fs::remove_dir(&at).unwrap();
        }
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        if link == "agents/bot/skills" {
            std::fs::write(root.join("agents/bot/AGENT.md"), AGENT_MD).unwrap();
        }
        std::os::unix::fs::symlink(&outside, &at).unwrap();
        refused_both_ways(archive, &root, "symbolic link");
        assert!(
            tree(&outside).is_empty(),
            "{link}: written outside: {:?}",
            tree(&outside)
        );
    }
}

#[test]
fn a_failing_import_is_predicted_by_the_dry_run_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = new_root(dir.path());
    // A member name with a NUL in it, after members that would have been written first.
    let archive = Archive::new()
        .agent("bot", 2)
        .member("files/USER.md", b"user")
        .member("files/skills/s/a\0b", b"x")
        .write(&dir.path().join("nul.oryx.zip"));
    refused_both_ways(&archive, &root, "a path an export never writes");
    // A file where the agent's folder goes.
    std::fs::write(root.join("agents/bot"), "not a folder").unwrap();
    let archive = Archive::new()
        .agent("bot", 2)
        .member("files/USER.md", b"user")
        .member("files/skills/s/SKILL.md", b"---\nname: s\n---\n")
        .write(&dir.path().join("file.oryx.zip"));
    refused_both_ways(&archive, &root, "is a file where a folder belongs");
    // An agent the archive has entries for but no folder file, absent from the target.
    std::fs::remove_file(root.join("agents/bot")).unwrap();
    let archive = Archive {
        owners: vec!["ghost".into()],
        members: vec![
            ("entries/ghost.jsonl".into(), entries("ghost", 2)),
            ("files/USER.md".into(), b"user".to_vec()),
        ],
        links: Vec::new(),
    }
    .write(&dir.path().join("ghost.oryx.zip"));
    refused_both_ways(&archive, &root, "agent ghost is not in the target root");
    // A cancel while files are staged leaves nothing, not even the folders made for them.
    let archive = Archive::new()
        .agent("bot", 2)
        .member("files/skills/s/SKILL.md", b"---\nname: s\n---\n")
        .write(&dir.path().join("ok.oryx.zip"));
    let before = tree(&root);
    let store = MarkdownMemoryStore::new(&root);
    let cancel = AtomicBool::new(false);
    let r = import(
        &archive,
        &root,
        &store,
        &ImportOptions::default(),
        &cancel,
        &mut |p| {
            // The last member checked: the next thing is staging.
            if p.stage.contains("skills/s/SKILL.md") {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        },
    );
    // Checked members come in name order; SKILL.md is the last: the staging sees the cancel.
    assert!(r.unwrap().cancelled);
    assert_eq!(tree(&root), before);
}

#[test]
fn two_agents_onto_one_name_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = new_root(dir.path());
    let archive = Archive::new()
        .agent("a", 26)
        .agent("b", 7)
        .write(&dir.path().join("ab.oryx.zip"));
    for map in [
        HashMap::from([("a".to_string(), "c".to_string()), ("b".into(), "c".into())]),
        HashMap::from([("a".to_string(), "b".to_string())]),
    ] {
        let before = tree(&root);
        for dry_run in [true, false] {
            let o = ImportOptions {
                dry_run,
                agent_map: map.clone(),
                overwrite_files: false,
            };
            let e = run(&archive, &root, &o).expect_err("refused");
            assert!(matches!(e, CoreError::InvalidInput(_)), "{e}");
            assert!(e.to_string().contains("would both be imported as"), "{e}");
            assert_eq!(tree(&root), before);
        }
    }
    // Mapped apart, the report says what the target holds.
    let o = ImportOptions {
        agent_map: HashMap::from([("a".to_string(), "c".to_string())]),
        ..ImportOptions::default()
    };
    let r = run(&archive, &root, &o).unwrap();
    let store = MarkdownMemoryStore::new(&root);
    for ow in &r.owners {
        let held = store.load_all(&Owner::Agent(ow.owner.clone())).unwrap();
        assert_eq!(ow.new, held.core.len() + held.archival.len(), "{ow:?}");
    }
    let again = run(&archive, &root, &o).unwrap();
    assert!(again.owners.iter().all(|o| o.new == 0), "{again:?}");
}

#[test]
fn an_archived_history_never_joins_the_targets_own_memory() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new()
        .agent("bot", 3)
        .member(
            "files/agents/bot/MEMORY.md.oryx-history",
            b"{\"history\":1}\n",
        )
        .write(&dir.path().join("h.oryx.zip"));
    // The target has its own MEMORY.md: the entries are added to it, the history dropped.
    let root = new_root(&dir.path().join("own"));
    std::fs::create_dir_all(root.join("agents/bot")).unwrap();
    let store = MarkdownMemoryStore::new(&root);
    store
        .append(&Owner::Agent("bot".into()), Scope::Core, "own entry", None)
        .unwrap();
    for o in [dry(), ImportOptions::default()] {
        let r = run(&archive, &root, &o).unwrap();
        assert!(
            r.files_kept
                .iter()
                .any(|k| k.starts_with("agents/bot/MEMORY.md.oryx-history:")),
            "{r:?}"
        );
        assert!(!r.files_written.iter().any(|f| f.contains("history")));
    }
    assert!(!root.join("agents/bot/MEMORY.md.oryx-history").exists());
    // A target without one: MEMORY.md goes over byte for byte, with its history.
    let fresh = new_root(&dir.path().join("fresh"));
    let r = run(&archive, &fresh, &ImportOptions::default()).unwrap();
    assert!(r
        .files_written
        .contains(&"agents/bot/MEMORY.md.oryx-history".to_string()));
    assert_eq!(
        std::fs::read(fresh.join("agents/bot/MEMORY.md")).unwrap(),
        memory_md("bot", 3)
    );
    // A target with a history but no MEMORY.md: nothing goes over byte for byte.
    let torn = new_root(&dir.path().join("torn"));
    std::fs::create_dir_all(torn.join("agents/bot")).unwrap();
    std::fs::write(torn.join("agents/bot/MEMORY.md.oryx-history"), "theirs").unwrap();
    let r = run(&archive, &torn, &ImportOptions::default()).unwrap();
    assert!(
        !r.files_written.iter().any(|f| f.contains("MEMORY")),
        "{r:?}"
    );
    assert_eq!(
        std::fs::read_to_string(torn.join("agents/bot/MEMORY.md.oryx-history")).unwrap(),
        "theirs"
    );
}
