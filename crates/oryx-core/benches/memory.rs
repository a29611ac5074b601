//! Archival append and the prompt's load must not grow with the size of MEMORY.md: the same
//! operations on a 1 KB file and on a 100 MB file (set ORYX_BENCH_MB for another size).

use std::io::Write;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore, Scope};
use oryx_core::names::Owner;

fn write_memory(path: &Path, bytes: usize) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(
        f,
        "## 核心记忆\n- [2026-01-01 00:00:00] 用户偏好简洁的回复\n## 归档记忆"
    )
    .unwrap();
    let mut written = 0;
    let mut i = 0u64;
    while written < bytes {
        let line = format!("- [2026-01-01 00:00:00] 触发「第 {i} 次总结日志 summarize logs」⇒ 已总结 3 个错误 three errors found\n");
        f.write_all(line.as_bytes()).unwrap();
        written += line.len();
        i += 1;
    }
}

fn bench(c: &mut Criterion) {
    let big_mb: usize = std::env::var("ORYX_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("markdown");
    group.sample_size(20);
    for (label, bytes) in [
        ("1KB", 1024usize),
        (&*format!("{big_mb}MB"), big_mb * 1024 * 1024),
    ] {
        let root = dir.path().join(label);
        let store = MarkdownMemoryStore::new(&root);
        write_memory(&store.path(&Owner::Global), bytes);
        group.bench_with_input(BenchmarkId::new("load_context", label), &store, |b, s| {
            b.iter(|| s.load_context(&Owner::Global, 4000).unwrap())
        });
        group.bench_with_input(
            BenchmarkId::new("append_archival", label),
            &store,
            |b, s| {
                b.iter(|| {
                    s.append(&Owner::Global, Scope::Archival, "bench entry", None)
                        .unwrap()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
