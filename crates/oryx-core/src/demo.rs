//! A realistic sample `.oryxos` root with a database, so a new user (and every end-to-end test)
//! sees a populated console. Content is written through the same stores the console reads.

use std::fs;
use std::path::Path;

use chrono::{Duration, NaiveDateTime};
use serde_json::json;

use crate::config::DB_FILE;
use crate::error::{CoreError, IoContext, Result};
use crate::memory::{LongTermMemoryStore, MarkdownMemoryStore, Scope, SqliteMemoryStore};
use crate::names::Owner;
use crate::sessions::{NewInvocation, NewSession, SessionStore};
use crate::timefmt::{local_to_epoch_ms, now_local};

pub struct DemoSummary {
    pub agents: usize,
    pub memory_entries: usize,
    pub sessions: usize,
}

const USER_MD: &str = "# 关于我\n\n- 名字：林晓（Lin Xiao），后端工程师，在上海。\n- 喜欢简洁、直接的回答；代码示例优先用 Rust 或 Java。\n- 工作时间 09:30–19:00（UTC+8），周末不要安排会议。\n";
const AGENTS_MD: &str = "# Agents\n\nAll agents share these rules:\n\n1. Be concise. Prefer one short paragraph over a list.\n2. Use save_memory for durable facts about the user; never store secrets.\n3. Recall before you save to avoid duplicates.\n";
const SOUL_MD: &str = "# Soul\n\n好奇、耐心、诚实。不知道就说不知道。\n";

/// The sample install's providers: `mock` answers without a key, as the runtime's own mock
/// provider does; the others hold no key (name, api key, base url, description). Every provider
/// a sample agent names is here, so the runtime loads every sample agent.
const PROVIDER_ROWS: &[(&str, Option<&str>, Option<&str>, &str)] = &[
    (
        "anthropic",
        None,
        Some("https://api.anthropic.com"),
        "Anthropic (fill in the API key)",
    ),
    (
        "deepseek",
        None,
        Some("https://api.deepseek.com"),
        "DeepSeek (fill in the API key)",
    ),
    (
        "mock",
        None,
        None,
        "built-in mock provider: no model, no key",
    ),
    (
        "openai",
        None,
        Some("https://api.openai.com"),
        "OpenAI (fill in the API key)",
    ),
];

/// The sample install's configuration, shaped like the runtime's
/// `config/application.yml.example`: the keys a deployment adjusts, each explained.
const APPLICATION_YML: &str = r#"# OryxOS runtime configuration (sample install written by `oryx demo`).
# The runtime reads this file on start (bin/start.sh passes config/ to Spring);
# what is not here comes from the defaults inside the runtime's jar.

# ── Service ──────────────────────────────────────────────
server:
  port: 8080                    # not used under bin/start.sh: `serve --port` decides (default 8080)

# ── Database ─────────────────────────────────────────────
spring:
  datasource:
    url: jdbc:sqlite:oryxos.db  # sessions, tool calls, sqlite memory; relative to the start folder

# ── Embeddings (semantic recall of memory and knowledge) ──
# provider names an entry of the provider registry; empty = keyword recall only.
embedding:
  provider: mock
  model: ''

# ── Long-term memory ─────────────────────────────────────
memory:
  backend: markdown             # markdown (files under .oryxos) | sqlite (oryxos.db) | mem0 (service)
  recall:                       # weighted fusion, used when embedding.provider is set
    top-k: 20                   # most entries a recall returns
    weight:
      semantic: 1.0             # raise to favour meaning over words
      keyword: 1.0
      recency: 1.0              # raise to favour recent entries
  mem0:
    base-url: ${MEM0_BASE_URL:} # only for backend mem0; from the environment
    user-id: ${MEM0_USER_ID:oryxos}
    api-key: ${MEM0_API_KEY:}

# ── Workspace and providers ──────────────────────────────
oryxos:
  root: .oryxos                 # agents/, memory/, skills/ live here
  providers:                    # seeded into the providers table on first start
    - name: anthropic
      api-key: ""               # your Anthropic API key
      base-url: https://api.anthropic.com
    - name: deepseek
      api-key: ""               # your DeepSeek API key
      base-url: https://api.deepseek.com
    - name: mock                # answers without a model or a key: for trying things out
    - name: openai
      api-key: ""               # your OpenAI API key
      base-url: https://api.openai.com
"#;

struct AgentSpec {
    name: &'static str,
    md: &'static str,
    skills: &'static [&'static str],
    core: &'static [&'static str],
    archival_topics: &'static [(&'static str, &'static str)],
    archival_count: usize,
}

const AGENTS: &[AgentSpec] = &[
    AgentSpec {
        name: "assistant",
        md: "---\nname: assistant\ndescription: 日常助理：日程、提醒、资料整理\nidentity:\n  agent_name: 小O\n  prompt: 你是小O，林晓的私人助理。\nprovider:\n  name: openai\n  model: gpt-4o-mini\n  temperature: 0.3\ntools: [save_memory, recall_memory, web_search]\nbootstrap: [AGENTS.md, SOUL.md, USER.md]\nsettings:\n  max_history_turns: 20\nschedules:\n  - key: morning-brief\n    name: 早间简报\n    cron: \"0 0 9 * * MON-FRI\"\n    zone: Asia/Shanghai\n    message: 整理今天的日程和待办，发一份早间简报。\nchannels: [cli, feishu]\n---\n# 小O\n\n你帮助林晓管理日程、提醒和资料。回答要简短。\n",
        skills: &["web-search", "calendar"],
        core: &[
            "用户偏好简洁的回复，不用列表。",
            "用户的时区是 UTC+8（上海）。",
            "周末不要安排会议。",
            "User prefers Rust examples over Python.",
        ],
        archival_topics: &[
            ("帮我总结今天的日志", "已总结 3 个错误：连接池耗尽、超时重试、磁盘告警"),
            ("明天上午有什么安排", "10:00 架构评审，11:30 与产品对需求"),
            ("Remind me to renew the TLS certificate", "Reminder set for Friday 10:00"),
            ("查一下 Rust 1.95 的发布说明", "已整理 5 条要点并保存到笔记"),
            ("把周报草稿发给我", "已生成周报草稿，共 4 段"),
        ],
        archival_count: 140,
    },
    AgentSpec {
        name: "log_analyst",
        md: "---\nname: log_analyst\ndescription: Reads service logs and explains incidents\nprovider:\n  name: deepseek\n  model: deepseek-chat\ntools: [save_memory, recall_memory]\nbootstrap: [AGENTS.md]\nsettings:\n  max_history_turns: 8\n---\nYou analyse logs. Quote the exact log line for every claim.\n",
        skills: &["summarize"],
        core: &["生产环境日志在 /var/log/oryx/，按天滚动。", "Error budget: 0.1% of requests per 30 days."],
        archival_topics: &[
            ("why did checkout fail at 03:12", "Connection pool exhausted: 50/50 in use for 4 minutes"),
            ("分析 gateway 的 502", "上游 pod 重启导致 37 次 502，已恢复"),
        ],
        archival_count: 24,
    },
    AgentSpec {
        name: "researcher",
        md: "---\nname: researcher\ndescription: Finds and compares papers and docs\nprovider:\n  name: anthropic\n  model: claude-sonnet\ntools: [save_memory, recall_memory, web_search]\n---\nYou research questions and cite sources.\n",
        skills: &["web-search", "summarize"],
        core: &["Cite at most three sources per answer."],
        archival_topics: &[("compare vector databases", "Compared qdrant, pgvector, lance: summary saved")],
        archival_count: 6,
    },
    AgentSpec {
        name: "scheduler",
        md: "---\nname: scheduler\ndescription: 负责定时任务（尚无记忆）\nprovider:\n  name: openai\n  model: gpt-4o-mini\nschedules:\n  - key: weekly-report\n    name: 周报提醒\n    cron: \"0 30 17 * * FRI\"\n    zone: Asia/Shanghai\n    message: 提醒林晓提交本周周报。\n  - key: disk-check\n    name: Nightly disk check\n    cron: \"0 0 2 * * *\"\n    zone: UTC\n    message: Check disk usage and report anything above 80%.\n---\n按计划执行任务。\n",
        skills: &["calendar"],
        core: &[],
        archival_topics: &[],
        archival_count: 0,
    },
];

const SKILLS: &[(&str, &str)] = &[
    ("web-search", "Search the web and return the top results"),
    ("calendar", "读取和创建日程"),
    ("summarize", "Summarise long text into a few sentences"),
];

/// Writes the sample into `root` (which must be empty or missing) and its `oryxos.db`: a bare
/// root, with no install around it.
pub fn write_sample(root: &Path) -> Result<DemoSummary> {
    require_empty(root, "sample root")?;
    fs::create_dir_all(root).at(root)?;
    let root = root.canonicalize().at(root)?;
    write_sample_at(&root, &root.join(DB_FILE))
}

/// Writes a runtime install into `dir` (empty or missing), laid out as the runtime's start
/// script runs it: `.oryxos/` (the sample root), `oryxos.db` beside it with the runtime's
/// tables and provider rows, and `config/application.yml`.
pub fn write_install(dir: &Path) -> Result<DemoSummary> {
    require_empty(dir, "sample install")?;
    fs::create_dir_all(dir).at(dir)?;
    let dir = dir.canonicalize().at(dir)?;
    write(&dir, "config/application.yml", APPLICATION_YML)?;
    fs::create_dir_all(dir.join("logs")).at(&dir)?;
    fs::create_dir_all(dir.join("bin")).at(&dir)?;
    let db_path = dir.join(DB_FILE);
    let conn = rusqlite::Connection::open(&db_path).map_err(|e| CoreError::Database {
        path: db_path.clone(),
        source: e,
    })?;
    let now = crate::timefmt::local_to_epoch_ms(&now_local());
    crate::runtime::schema::create(&conn)
        .and_then(|_| {
            for (name, key, url, desc) in PROVIDER_ROWS {
                conn.execute(
                    "INSERT INTO providers (name, api_key, base_url, description, created_at, \
                     updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                    rusqlite::params![name, key, url, desc, now],
                )?;
            }
            Ok(())
        })
        .map_err(|e| CoreError::Database {
            path: db_path.clone(),
            source: e,
        })?;
    drop(conn);
    let root = dir.join(".oryxos");
    fs::create_dir_all(&root).at(&root)?;
    write_sample_at(&root, &db_path)
}

fn require_empty(dir: &Path, what: &str) -> Result<()> {
    if dir.exists() && fs::read_dir(dir).at(dir)?.next().is_some() {
        return Err(CoreError::Conflict(format!(
            "{} is not empty; choose a new folder for the {what}",
            dir.display()
        )));
    }
    Ok(())
}

fn write_sample_at(root: &Path, db_path: &Path) -> Result<DemoSummary> {
    for (name, text) in [
        ("USER.md", USER_MD),
        ("AGENTS.md", AGENTS_MD),
        ("SOUL.md", SOUL_MD),
    ] {
        write(root, name, text)?;
    }
    for (name, desc) in SKILLS {
        write(
            root,
            &format!("skills/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\n{desc}.\n"),
        )?;
    }
    fs::create_dir_all(root.join("archive")).at(root)?;
    let md = MarkdownMemoryStore::new(root);
    let sql = SqliteMemoryStore::new(db_path);
    let sessions = SessionStore::new(db_path);
    // At a fixed time of day, so the sample's entries fall on the same days whatever the hour it
    // is written at (per-day counts, the window's reach); 29 days back at 09:00 keeps every entry
    // within the last 30 days.
    let start = (now_local().date() - Duration::days(29))
        .and_hms_opt(9, 0, 0)
        .expect("09:00 exists");
    let mut entries = 0;
    let mut session_count = 0;
    for (ai, spec) in AGENTS.iter().enumerate() {
        write(root, &format!("agents/{}/AGENT.md", spec.name), spec.md)?;
        link_skills(root, spec)?;
        let owner = Owner::Agent(spec.name.to_string());
        entries += write_memory(&md, &owner, spec, start)?;
        // The sqlite backend holds a shorter history, as if the agent had used it for a while.
        entries += write_memory_subset(&sql, &owner, spec, start)?;
        session_count += write_sessions(&sessions, spec, ai, start)?;
    }
    md.append(
        &Owner::Global,
        Scope::Core,
        "全局：所有 Agent 共用的事实放在这里。",
        Some(start),
    )?;
    md.append(
        &Owner::Global,
        Scope::Archival,
        "触发「系统自检」⇒ 全部正常",
        Some(start + Duration::hours(1)),
    )?;
    entries += 2;
    Ok(DemoSummary {
        agents: AGENTS.len(),
        memory_entries: entries,
        sessions: session_count,
    })
}

fn write(root: &Path, rel: &str, text: &str) -> Result<()> {
    let p = root.join(rel);
    if let Some(dir) = p.parent() {
        fs::create_dir_all(dir).at(dir)?;
    }
    fs::write(&p, text).at(&p)
}

fn link_skills(root: &Path, spec: &AgentSpec) -> Result<()> {
    let dir = root.join("agents").join(spec.name).join("skills");
    fs::create_dir_all(&dir).at(&dir)?;
    for skill in spec.skills {
        let link = dir.join(skill);
        #[cfg(unix)]
        std::os::unix::fs::symlink(format!("../../../skills/{skill}"), &link).at(&link)?;
        #[cfg(not(unix))]
        fs::create_dir_all(&link).at(&link)?;
    }
    Ok(())
}

fn archival_text(spec: &AgentSpec, i: usize) -> String {
    let (user, reply) = spec.archival_topics[i % spec.archival_topics.len()];
    format!("触发「{user}」⇒ {reply}（第 {} 次）", i + 1)
}

fn write_memory(
    store: &dyn LongTermMemoryStore,
    owner: &Owner,
    spec: &AgentSpec,
    start: NaiveDateTime,
) -> Result<usize> {
    for (i, c) in spec.core.iter().enumerate() {
        store.append(
            owner,
            Scope::Core,
            c,
            Some(start + Duration::minutes(i as i64)),
        )?;
    }
    for i in 0..spec.archival_count {
        let at = start + Duration::hours(4 * i as i64 + 1);
        store.append(owner, Scope::Archival, &archival_text(spec, i), Some(at))?;
    }
    Ok(spec.core.len() + spec.archival_count)
}

fn write_memory_subset(
    store: &dyn LongTermMemoryStore,
    owner: &Owner,
    spec: &AgentSpec,
    start: NaiveDateTime,
) -> Result<usize> {
    let mut n = 0;
    if let Some(c) = spec.core.first() {
        store.append(owner, Scope::Core, &format!("{c}（sqlite）"), Some(start))?;
        n += 1;
    }
    for i in 0..spec.archival_count.min(12) {
        let at = start + Duration::hours(6 * i as i64 + 2);
        store.append(
            owner,
            Scope::Archival,
            &format!("[sqlite] {}", archival_text(spec, i)),
            Some(at),
        )?;
        n += 1;
    }
    Ok(n)
}

fn write_sessions(
    store: &SessionStore,
    spec: &AgentSpec,
    ai: usize,
    start: NaiveDateTime,
) -> Result<usize> {
    if spec.archival_topics.is_empty() {
        return Ok(0);
    }
    let channels = ["cli", "feishu", "web"];
    let mut count = 0;
    for (si, (user, reply)) in spec.archival_topics.iter().enumerate() {
        let channel = channels[(si + ai) % channels.len()];
        let user_id = ["linxiao", "ops-bot", "chen.wei", "maria", "oncall"][si % 5];
        // The runtime's id shape: channel:user:agent.
        let id = format!("{channel}:{user_id}:{}", spec.name);
        let messages = json!([
            {"role": "user", "content": user},
            {"role": "assistant", "content": null, "toolCalls": [{"id": "call_1", "name": "recall_memory", "argumentsJson": "{\"keyword\":\"偏好\"}"}]},
            {"role": "tool", "content": "- [2026-07-22 09:30:00] 用户偏好简洁的回复，不用列表。", "toolName": "recall_memory", "toolCallId": "call_1"},
            {"role": "assistant", "content": reply},
            {"role": "user", "content": "谢谢，记住我更喜欢早上收到简报"},
            {"role": "assistant", "content": null, "toolCalls": [{"id": "call_2", "name": "save_memory", "argumentsJson": "{\"content\":\"用户更喜欢早上收到简报\",\"scope\":\"core\"}"}]},
            {"role": "tool", "content": "已记住", "toolName": "save_memory", "toolCallId": "call_2"},
            {"role": "assistant", "content": "好的，已记住。"}
        ]);
        let created = start + Duration::days(si as i64 * 3 + ai as i64);
        let last = created + Duration::minutes(7);
        let archived = si + 1 < spec.archival_topics.len() && si % 3 == 2;
        store.insert_session(&NewSession {
            session_id: id.clone(),
            agent: Some(spec.name.to_string()),
            channel: Some(channel.to_string()),
            user_id: Some(user_id.to_string()),
            messages_json: messages.to_string(),
            status: if archived { "archived" } else { "active" }.to_string(),
            created_at_ms: local_to_epoch_ms(&created),
            last_active_at_ms: local_to_epoch_ms(&last),
            archived_at_ms: archived.then(|| local_to_epoch_ms(&(last + Duration::hours(1)))),
        })?;
        // Each call at its moment in the conversation, as the runtime would have recorded it.
        for (minute, tool, input, output) in [
            (
                1,
                "recall_memory",
                "{\"keyword\":\"偏好\"}",
                "- [2026-07-22 09:30:00] 用户偏好简洁的回复，不用列表。",
            ),
            (
                5,
                "save_memory",
                "{\"content\":\"用户更喜欢早上收到简报\",\"scope\":\"core\"}",
                "已记住",
            ),
        ] {
            store.record_invocation(&NewInvocation {
                session_id: id.clone(),
                tool_name: tool.to_string(),
                input_json: input.to_string(),
                result_json: Some(serde_json::to_string(output).expect("string serialises")),
                success: true,
                error_message: None,
                duration_ms: 3 + si as i64,
                created_at_ms: Some(local_to_epoch_ms(&(created + Duration::minutes(minute)))),
            })?;
        }
        count += 1;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents;

    /// The runtime refuses an agent whose schedule lacks `key` or `name`: every sample agent must
    /// load there, with its schedules in the runtime's shape.
    #[test]
    fn sample_schedules_have_the_runtime_shape() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        write_sample(&root).unwrap();
        let list = agents::list(&root).unwrap();
        let mut seen = 0;
        for a in &list {
            assert!(
                a.warnings.iter().all(|w| !w.contains("schedules")),
                "{}: {:?}",
                a.name,
                a.warnings
            );
            for (i, raw) in a.schedules.as_array().into_iter().flatten().enumerate() {
                for field in ["key", "name", "cron", "zone", "message"] {
                    assert!(
                        raw[field].as_str().is_some_and(|v| !v.is_empty()),
                        "{} schedules[{i}] lacks {field}: {raw}",
                        a.name
                    );
                }
                assert!(raw.get("prompt").is_none(), "{raw}");
                seen += 1;
            }
            assert_eq!(
                a.schedule_entries().len(),
                a.schedules.as_array().map_or(0, Vec::len)
            );
        }
        assert_eq!(seen, 3, "assistant has one schedule, scheduler two");
        let assistant = list.iter().find(|a| a.name == "assistant").unwrap();
        assert_eq!(
            assistant.schedule_entries()[0].cron.as_deref(),
            Some("0 0 9 * * MON-FRI")
        );
    }
}
