//! Deterministic data at scale: MEMORY.md files of realistic mixed CJK + ASCII footprints, a
//! runtime database with memory entries and sessions (one transaction, prepared statements).
//! A directory is reused when its `PARAMS` stamp matches, so a second run skips generation.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rusqlite::params;

/// Bump when the generator's output changes, so old data directories are rebuilt.
const GENERATOR_VERSION: u32 = 1;

/// The agent whose memory is large; the others are small.
pub const BIG: &str = "big";
pub const SMALL: &str = "small";
pub const OTHER_AGENTS: usize = 8;
/// The session with many messages.
pub const HEAVY_SESSION: &str = "web:heavy-user:big";

/// Keywords with a realistic hit rate (about 0.5% of archival entries each) and a common
/// two-character CJK word (about 5%).
pub const RARE_ASCII: &str = "kubernetes";
pub const RARE_CJK: &str = "数据库迁移";
pub const SHORT_CJK: &str = "日志";

#[derive(Debug, Clone)]
pub struct Scale {
    pub name: &'static str,
    pub big_bytes: usize,
    pub small_bytes: usize,
    pub memory_rows: usize,
    pub sessions: usize,
    pub heavy_messages: usize,
    pub appenders: usize,
    pub appends_each: usize,
    pub runs: usize,
    /// Entries embedded for the throughput figure.
    pub embed_entries: usize,
    /// Vectors a semantic query ranks (the goal is stated at 100 000).
    pub vectors: usize,
}

impl Scale {
    pub fn full() -> Scale {
        Scale {
            name: "full",
            big_bytes: 100 * 1024 * 1024,
            small_bytes: 100 * 1024,
            memory_rows: 1_000_000,
            sessions: 100_000,
            heavy_messages: 10_000,
            appenders: 8,
            appends_each: 250,
            runs: 15,
            embed_entries: 2000,
            vectors: 100_000,
        }
    }

    pub fn quick() -> Scale {
        Scale {
            name: "quick",
            big_bytes: 10 * 1024 * 1024,
            small_bytes: 100 * 1024,
            memory_rows: 100_000,
            sessions: 10_000,
            heavy_messages: 10_000,
            appenders: 8,
            appends_each: 50,
            runs: 9,
            embed_entries: 500,
            vectors: 100_000,
        }
    }

    fn stamp(&self) -> String {
        format!(
            "v{GENERATOR_VERSION} big={} small={} rows={} sessions={} heavy={}\n",
            self.big_bytes, self.small_bytes, self.memory_rows, self.sessions, self.heavy_messages
        )
    }
}

/// splitmix64: small, fast and deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.next() % 1000 < per_mille
    }
}

const ASKS_CJK: &[&str] = &[
    "帮我总结今天的日志",
    "查询明天北京的天气",
    "整理一下会议纪要",
    "修复登录页面的错误",
    "更新项目依赖版本",
    "备份生产数据库",
    "分析上个月的销售数据",
    "把这段文字翻译成英文",
    "给客户写一封道歉邮件",
    "检查服务器磁盘状态",
    "生成本周的周报",
    "优化慢查询的性能",
    "安排下周二的评审会议",
    "提醒我下午三点喝水",
    "解释这个报错是什么意思",
    "重构支付模块的接口",
    "部署到测试环境",
    "审查这个合并请求",
    "统计新用户的增长",
    "清理过期的缓存文件",
];
const ASKS_EN: &[&str] = &[
    "summarize the error logs",
    "check disk usage on the build host",
    "deploy the api to staging",
    "fix the flaky integration test",
    "rotate the API keys",
    "review pull request 1432",
    "update the changelog for v2.3",
    "restart the background worker",
    "export the weekly report as CSV",
    "migrate the schema to version 14",
    "draft release notes",
    "find why the cron job failed",
    "compare memory usage before and after",
    "list open incidents",
];
const REPLIES: &[&str] = &[
    "已总结 3 个错误，主要是超时",
    "已完成，耗时 2.4 秒",
    "found 2 warnings and no errors",
    "共 12 条记录，已导出",
    "done in 3.2s",
    "邮件已发送给 5 位收件人",
    "no issues found",
    "已创建工单 OPS-2291",
    "the job failed at step 4: permission denied",
    "天气晴，最高气温 26 度",
    "已安排，日历邀请已发出",
    "cache cleared: 1.3 GB freed",
    "测试通过 128/128",
    "需要你确认后再继续",
];
const CORE_FACTS: &[&str] = &[
    "用户偏好简洁的回复，不用列表。",
    "User prefers answers in English for code, Chinese for everything else.",
    "用户的时区是 Asia/Shanghai。",
    "Production deploys only on weekdays before 16:00.",
    "用户的名字是李雷，团队是平台组。",
    "Always run the test suite before suggesting a merge.",
];

/// One footprint-like archival content line, sometimes with one of the benchmark keywords.
pub fn archival_content(rng: &mut Rng, i: u64) -> String {
    let ask = if rng.chance(5) {
        format!("把 {RARE_ASCII} 集群扩容到 {} 个节点", 3 + rng.below(20))
    } else if rng.chance(5) {
        format!("准备{RARE_CJK}方案，第 {} 步", 1 + rng.below(9))
    } else if rng.below(2) == 0 {
        rng.pick(ASKS_CJK).to_string()
    } else {
        rng.pick(ASKS_EN).to_string()
    };
    // Some footprints carry an issue-style number with '#', as real ones do.
    let tag = if i.is_multiple_of(10) {
        format!("#{i}")
    } else {
        format!("第 {i} 次")
    };
    format!("触发「{ask}（{tag}）」⇒ {}", rng.pick(REPLIES))
}

fn ts(minutes: u64) -> String {
    let base = chrono::NaiveDate::from_ymd_opt(2025, 1, 1)
        .unwrap()
        .and_hms_opt(8, 0, 0)
        .unwrap();
    let t = base + chrono::Duration::seconds(minutes as i64 * 37);
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// A MEMORY.md of about `bytes` bytes: a few core facts, then archival footprints.
pub fn write_memory_md(path: &Path, bytes: usize, seed: u64) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = BufWriter::with_capacity(1 << 20, fs::File::create(path).unwrap());
    let mut rng = Rng::new(seed);
    let mut head = String::from("## 核心记忆\n");
    for (i, fact) in CORE_FACTS.iter().enumerate() {
        head.push_str(&format!("- [{}] {fact}\n", ts(i as u64)));
    }
    head.push_str("## 归档记忆\n");
    f.write_all(head.as_bytes()).unwrap();
    let mut written = head.len();
    let mut i = 0u64;
    while written < bytes {
        let line = format!("- [{}] {}\n", ts(100 + i), archival_content(&mut rng, i));
        f.write_all(line.as_bytes()).unwrap();
        written += line.len();
        i += 1;
    }
    f.flush().unwrap();
}

fn message_json(rng: &mut Rng, role: &str, i: usize) -> serde_json::Value {
    let content = match role {
        "user" => format!("{}（第 {i} 条）", rng.pick(ASKS_CJK)),
        "tool" => format!("{{\"ok\":true,\"rows\":{}}}", rng.below(500)),
        _ => format!("{} — {}", rng.pick(REPLIES), rng.pick(ASKS_EN)),
    };
    let mut m = serde_json::json!({"role": role, "content": content});
    if role == "tool" {
        m["toolName"] = "recall_memory".into();
        m["toolCallId"] = format!("call_{i}").into();
    }
    if role == "assistant" && i % 7 == 3 {
        m["toolCalls"] = serde_json::json!([{"id": format!("call_{}", i + 1), "name": "recall_memory",
            "argumentsJson": "{\"keyword\":\"日志\"}"}]);
    }
    m
}

pub fn messages(rng: &mut Rng, n: usize) -> String {
    let msgs: Vec<_> = (0..n)
        .map(|i| {
            let role = match i % 4 {
                0 => "user",
                2 if i % 8 == 2 => "tool",
                _ => "assistant",
            };
            message_json(rng, role, i)
        })
        .collect();
    serde_json::to_string(&msgs).unwrap()
}

pub fn agent_names() -> Vec<String> {
    let mut v = vec![BIG.to_string(), SMALL.to_string()];
    v.extend((0..OTHER_AGENTS).map(|i| format!("agent-{i}")));
    v
}

fn write_database(path: &Path, scale: &Scale) {
    let _ = fs::remove_file(path);
    let conn = oryx_core::db::open_or_create(path).unwrap();
    let tx = conn.unchecked_transaction().unwrap();
    let agents = agent_names();
    let t0: i64 = 1_750_000_000_000;
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO memory_entries(agent_name, scope, content, created_at) \
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .unwrap();
        let mut rng = Rng::new(7);
        for i in 0..scale.memory_rows {
            // 90% of the rows belong to the big agent: its recall looks at nearly all of them.
            let agent = if i % 10 != 0 {
                BIG
            } else {
                &agents[1 + (i / 10) % (agents.len() - 1)]
            };
            let (scope, content) = if i % 100 == 1 {
                ("CORE", CORE_FACTS[rng.below(CORE_FACTS.len())].to_string())
            } else {
                ("ARCHIVAL", archival_content(&mut rng, i as u64))
            };
            ins.execute(params![agent, scope, content, t0 + i as i64 * 1000])
                .unwrap();
        }
    }
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, \
                 status, created_at, last_active_at, archived_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .unwrap();
        let mut rng = Rng::new(11);
        let channels = ["cli", "web", "feishu"];
        for i in 0..scale.sessions {
            let agent = &agents[rng.below(agents.len())];
            let channel = channels[rng.below(3)];
            let user = format!("u{i}");
            let id = format!("{channel}:{user}:{agent}");
            let n = 2 + rng.below(23);
            let created = t0 + rng.below(180 * 24 * 3600) as i64 * 1000;
            let last = created + rng.below(3 * 24 * 3600) as i64 * 1000;
            let archived = rng.chance(800);
            ins.execute(params![
                id,
                agent,
                channel,
                user,
                messages(&mut rng, n),
                if archived { "archived" } else { "active" },
                created,
                last,
                archived.then_some(last + 60_000)
            ])
            .unwrap();
        }
        let heavy = messages(&mut rng, scale.heavy_messages);
        let created = t0 + 10 * 24 * 3600 * 1000;
        ins.execute(params![
            HEAVY_SESSION,
            BIG,
            "web",
            "heavy-user",
            heavy,
            "active",
            created,
            created + 3_600_000,
            None::<i64>
        ])
        .unwrap();
    }
    tx.commit().unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); ANALYZE;")
        .unwrap();
}

/// Where everything lives for one scale.
pub struct Data {
    pub dir: PathBuf,
}

impl Data {
    /// The `.oryxos` root: agents/<name>/{AGENT.md,MEMORY.md} and oryxos.db.
    pub fn root(&self) -> PathBuf {
        self.dir.join("root")
    }
    pub fn db(&self) -> PathBuf {
        self.root().join("oryxos.db")
    }
    pub fn memory(&self, agent: &str) -> PathBuf {
        oryx_core::names::memory_path(
            &self.root(),
            &oryx_core::names::Owner::Agent(agent.to_string()),
        )
    }
}

pub fn ensure(base: &Path, scale: &Scale) -> (Data, bool) {
    let dir = base.join(scale.name);
    let data = Data { dir: dir.clone() };
    let stamp_path = dir.join("PARAMS");
    if fs::read_to_string(&stamp_path).ok().as_deref() == Some(scale.stamp().as_str()) {
        return (data, false);
    }
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for (i, agent) in agent_names().iter().enumerate() {
        let adir = data.root().join("agents").join(agent);
        fs::create_dir_all(&adir).unwrap();
        fs::write(
            adir.join("AGENT.md"),
            format!("---\nname: {agent}\ndescription: bench agent {i}\nprovider:\n  name: openai\n  model: gpt-4o\ntools: [save_memory, recall_memory]\n---\nYou are {agent}.\n"),
        )
        .unwrap();
        let bytes = match agent.as_str() {
            BIG => scale.big_bytes,
            SMALL => scale.small_bytes,
            _ => 8 * 1024,
        };
        write_memory_md(&data.memory(agent), bytes, 100 + i as u64);
    }
    write_database(&data.db(), scale);
    fs::write(&stamp_path, scale.stamp()).unwrap();
    (data, true)
}
