// The fake backend's world: a realistic .oryxos root modelled on `oryx demo` (crates/oryx-core
// demo.rs), plus agents with warnings and a corrupt session, so every screen has something to show.
import type { AgentDetail, MessageDto, SkillDto, ToolInvocationDto } from "./types";

export type FakeEntry = { ts: Date | null; content: string };
export type FakeMemory = { core: FakeEntry[]; archival: FakeEntry[] };

export type FakeAgent = {
  detail: Omit<AgentDetail, "summary" | "skills" | "dir"> & {
    description: string | null;
    provider: string | null;
    model: string | null;
    tools: string[];
  };
  name: string;
  hasAgentMd: boolean;
  warnings: string[];
  skills: SkillDto[];
  /** Memory per backend: the markdown files and the sqlite table hold different histories. */
  memory: { markdown: FakeMemory; sqlite: FakeMemory };
};

export type FakeSession = {
  session_id: string;
  agent: string | null;
  channel: string | null;
  user_id: string | null;
  status: "active" | "archived";
  created_at: Date;
  last_active_at: Date;
  archived_at: Date | null;
  messages: MessageDto[] | null;
  error: string | null;
};

export type FakeRoot = {
  path: string;
  agents: FakeAgent[];
  global: { markdown: FakeMemory; sqlite: FakeMemory };
  files: Record<string, string>;
  sessions: FakeSession[];
  invocations: ToolInvocationDto[];
  hasDb: boolean;
};

const USER_MD =
  "# 关于我\n\n- 名字：林晓（Lin Xiao），后端工程师，在上海。\n- 喜欢**简洁、直接**的回答；代码示例优先用 Rust 或 Java。\n- 工作时间 09:30–19:00（UTC+8），周末不要安排会议。\n";
const AGENTS_MD =
  "# Agents\n\nAll agents share these rules:\n\n1. Be concise. Prefer one short paragraph over a list.\n2. Use `save_memory` for durable facts about the user; never store secrets.\n3. Recall before you save to avoid duplicates.\n";
const SOUL_MD = "# Soul\n\n好奇、耐心、诚实。不知道就说不知道。\n";

const SKILLS: Record<string, string> = {
  "web-search": "Search the web and return the top results",
  calendar: "读取和创建日程",
  summarize: "Summarise long text into a few sentences",
};

type Spec = {
  name: string;
  description: string | null;
  provider: string | null;
  model: string | null;
  temperature: number | null;
  identityName?: string;
  identityPrompt?: string;
  tools: string[];
  bootstrap: string[];
  maxHistoryTurns: number;
  schedules?: string;
  channels?: string;
  body: string;
  skills: string[];
  core: string[];
  topics: [string, string][];
  archivalCount: number;
  hasAgentMd?: boolean;
  warnings?: string[];
  brokenSkill?: string;
  frontMatter?: string;
};

const SPECS: Spec[] = [
  {
    name: "assistant",
    description: "日常助理：日程、提醒、资料整理",
    provider: "openai",
    model: "gpt-4o-mini",
    temperature: 0.3,
    identityName: "小O",
    identityPrompt: "你是小O，林晓的私人助理。",
    tools: ["save_memory", "recall_memory", "web_search"],
    bootstrap: ["AGENTS.md", "SOUL.md", "USER.md"],
    maxHistoryTurns: 20,
    schedules: '- key: morning-brief\n  name: 早间简报\n  cron: "0 0 9 * * MON-FRI"\n  zone: Asia/Shanghai\n  message: 早间简报\n',
    channels: "- cli\n- feishu\n",
    body: "# 小O\n\n你帮助林晓管理**日程**、提醒和资料。回答要简短。\n\n## 规则\n\n- 先用 `recall_memory` 查找，再回答。\n- 不确定时直接说不知道。\n\n```\n早间简报：日程 + 待办 + 天气\n```\n",
    skills: ["web-search", "calendar"],
    core: ["用户偏好简洁的回复，不用列表。", "用户的时区是 UTC+8（上海）。", "周末不要安排会议。", "User prefers Rust examples over Python."],
    topics: [
      ["帮我总结今天的日志", "已总结 3 个错误：连接池耗尽、超时重试、磁盘告警"],
      ["明天上午有什么安排", "10:00 架构评审，11:30 与产品对需求"],
      ["Remind me to renew the TLS certificate", "Reminder set for Friday 10:00"],
      ["查一下 Rust 1.95 的发布说明", "已整理 5 条要点并保存到笔记"],
      ["把周报草稿发给我", "已生成周报草稿，共 4 段"],
    ],
    archivalCount: 140,
  },
  {
    name: "log_analyst",
    description: "Reads service logs and explains incidents",
    provider: "deepseek",
    model: "deepseek-chat",
    temperature: null,
    tools: ["save_memory", "recall_memory"],
    bootstrap: ["AGENTS.md"],
    maxHistoryTurns: 8,
    body: "You analyse logs. Quote the exact log line for every claim.\n",
    skills: ["summarize"],
    core: ["生产环境日志在 /var/log/oryx/，按天滚动。", "Error budget: 0.1% of requests per 30 days."],
    topics: [
      ["why did checkout fail at 03:12", "Connection pool exhausted: 50/50 in use for 4 minutes"],
      ["分析 gateway 的 502", "上游 pod 重启导致 37 次 502，已恢复"],
    ],
    archivalCount: 24,
  },
  {
    name: "researcher",
    description: "Finds and compares papers and docs",
    provider: "anthropic",
    model: "claude-sonnet",
    temperature: null,
    tools: ["save_memory", "recall_memory", "web_search"],
    bootstrap: ["AGENTS.md", "NOTES.md"],
    maxHistoryTurns: 20,
    body: "You research questions and cite sources.\n",
    skills: ["web-search", "summarize"],
    brokenSkill: "pdf-reader",
    core: ["Cite at most three sources per answer."],
    topics: [["compare vector databases", "Compared qdrant, pgvector, lance: summary saved"]],
    archivalCount: 6,
    warnings: ["skill pdf-reader: link is broken (its target does not exist)"],
  },
  {
    name: "scheduler",
    description: "负责定时任务（尚无记忆）",
    provider: "openai",
    model: "gpt-4o-mini",
    temperature: null,
    tools: [],
    bootstrap: [],
    maxHistoryTurns: 20,
    body: "按计划执行任务。\n",
    skills: ["calendar"],
    core: [],
    topics: [],
    archivalCount: 0,
  },
  {
    name: "writer",
    description: "Drafts blog posts",
    provider: "openai",
    model: "gpt-4o",
    temperature: 0.8,
    tools: ["save_memory"],
    bootstrap: ["USER.md"],
    maxHistoryTurns: 20,
    body: "Write in a friendly, plain style.\n",
    skills: [],
    core: ["Blog audience: backend engineers."],
    topics: [["draft a post about WAL mode", "Draft saved: 900 words"]],
    archivalCount: 3,
    frontMatter: 'name: author\ndescription: Drafts blog posts\nprovider:\n  name: openai\n  model: gpt-4o\n  temperature: 0.8\ntools: [save_memory]\nbootstrap: [USER.md]\n',
    warnings: ['AGENT.md says name "author" but the directory is "writer"'],
  },
  {
    name: "legacy-bot",
    description: null,
    provider: null,
    model: null,
    temperature: null,
    tools: [],
    bootstrap: [],
    maxHistoryTurns: 20,
    body: "",
    skills: [],
    core: ["Old bot from the Java prototype."],
    topics: [],
    archivalCount: 0,
    hasAgentMd: false,
    warnings: ["AGENT.md is missing"],
  },
  {
    name: "broken_yaml",
    description: null,
    provider: null,
    model: null,
    temperature: null,
    tools: [],
    bootstrap: [],
    maxHistoryTurns: 20,
    body: "This agent's front matter has a tab in it.\n",
    skills: [],
    core: [],
    topics: [],
    archivalCount: 0,
    frontMatter: "",
    warnings: ["AGENT.md front matter is not valid YAML: found character that cannot start any token at line 3 column 1"],
  },
];

const HOUR = 3600_000;
const DAY = 24 * HOUR;

function frontMatterYaml(s: Spec): string {
  if (s.frontMatter !== undefined) return s.frontMatter;
  if (s.hasAgentMd === false) return "";
  const lines = [`name: ${s.name}`];
  if (s.description) lines.push(`description: ${s.description}`);
  if (s.identityName || s.identityPrompt) {
    lines.push("identity:");
    if (s.identityName) lines.push(`  agent_name: ${s.identityName}`);
    if (s.identityPrompt) lines.push(`  prompt: ${s.identityPrompt}`);
  }
  if (s.provider || s.model) {
    lines.push("provider:");
    if (s.provider) lines.push(`  name: ${s.provider}`);
    if (s.model) lines.push(`  model: ${s.model}`);
    if (s.temperature !== null) lines.push(`  temperature: ${s.temperature}`);
  }
  if (s.tools.length) lines.push(`tools: [${s.tools.join(", ")}]`);
  if (s.bootstrap.length) lines.push(`bootstrap: [${s.bootstrap.join(", ")}]`);
  if (s.maxHistoryTurns !== 20) lines.push("settings:", `  max_history_turns: ${s.maxHistoryTurns}`);
  if (s.schedules) lines.push("schedules:", ...s.schedules.trimEnd().split("\n").map((l) => `  ${l}`));
  if (s.channels) lines.push("channels:", ...s.channels.trimEnd().split("\n").map((l) => `  ${l}`));
  return lines.join("\n") + "\n";
}

function archivalText(s: Spec, i: number): string {
  if (s.topics.length === 0) return `触发「ping」⇒ pong（第 ${i + 1} 次）`;
  const [user, reply] = s.topics[i % s.topics.length]!;
  return `触发「${user}」⇒ ${reply}（第 ${i + 1} 次）`;
}

function memoryFor(s: Spec, start: number, now: number, archivalCount: number): { markdown: FakeMemory; sqlite: FakeMemory } {
  // The demo's 4-hour rhythm; a huge archive (the scrolling check) is denser, ending an hour ago.
  const step = archivalCount > 180 ? 5 * 60_000 : 4 * HOUR;
  const archStart = archivalCount > 180 ? now - HOUR - archivalCount * step : start + HOUR;
  const markdown: FakeMemory = {
    core: s.core.map((c, i) => ({ ts: new Date(start + i * 60_000), content: c })),
    archival: [],
  };
  for (let i = 0; i < archivalCount; i++) {
    markdown.archival.push({ ts: new Date(archStart + i * step), content: archivalText(s, i) });
  }
  if (s.name === "assistant" && markdown.archival.length > 3) {
    // Older files: an entry without a timestamp, as a hand-edited MEMORY.md may hold.
    markdown.archival.splice(1, 0, { ts: null, content: "手动添加：用户的猫叫“豆包”。" });
  }
  const sqlite: FakeMemory = {
    core: s.core.length ? [{ ts: new Date(start), content: `${s.core[0]}（sqlite）` }] : [],
    archival: [],
  };
  for (let i = 0; i < Math.min(archivalCount, 12); i++) {
    sqlite.archival.push({ ts: new Date(start + (6 * i + 2) * HOUR), content: `[sqlite] ${archivalText(s, i)}` });
  }
  if (s.name === "assistant" && archivalCount <= 180 && markdown.archival.length > 3) {
    // An earlier, partial copy: the newest three markdown entries are already in the table.
    sqlite.archival.push(...markdown.archival.slice(-3).map((e) => ({ ...e })));
  }
  return { markdown, sqlite };
}

function conversation(user: string, reply: string): MessageDto[] {
  const m = (role: string, content: string | null, extra: Partial<MessageDto> = {}): MessageDto => ({
    role,
    content,
    tool_name: null,
    tool_call_id: null,
    tool_calls: [],
    ...extra,
  });
  return [
    m("user", user),
    m("assistant", null, { tool_calls: [{ id: "call_1", name: "recall_memory", arguments_json: '{"keyword":"偏好"}' }] }),
    m("tool", "- [2026-07-22 09:30:00] 用户偏好简洁的回复，不用列表。", { tool_name: "recall_memory", tool_call_id: "call_1" }),
    m("assistant", reply),
    m("user", "谢谢，记住我更喜欢早上收到简报"),
    m("assistant", null, {
      tool_calls: [{ id: "call_2", name: "save_memory", arguments_json: '{"content":"用户更喜欢早上收到简报","scope":"core"}' }],
    }),
    m("tool", "已记住", { tool_name: "save_memory", tool_call_id: "call_2" }),
    m("assistant", "好的，已记住。"),
  ];
}

export type BuildOptions = {
  now: Date;
  /** Archival entries for the assistant agent (default 140, as in the demo). */
  assistantArchival?: number;
};

export function buildDemoRoot(path: string, opts: BuildOptions): FakeRoot {
  const start = opts.now.getTime() - 30 * DAY;
  const sessions: FakeSession[] = [];
  const invocations: ToolInvocationDto[] = [];
  const channels = ["cli", "feishu", "web"];
  let invId = 1;
  const agents: FakeAgent[] = SPECS.map((s, ai) => {
    const count = s.name === "assistant" && opts.assistantArchival !== undefined ? opts.assistantArchival : s.archivalCount;
    s.topics.forEach(([user, reply], si) => {
      const channel = channels[(si + ai) % channels.length]!;
      const userId = si % 2 === 0 ? "linxiao" : "ops-bot";
      const id = `${channel}:${userId}:${s.name}:${si}`;
      const created = new Date(start + (si * 3 + ai) * DAY);
      const last = new Date(created.getTime() + 7 * 60_000);
      const archived = si + 1 < s.topics.length && si % 3 === 2;
      sessions.push({
        session_id: id,
        agent: s.name,
        channel,
        user_id: userId,
        status: archived ? "archived" : "active",
        created_at: created,
        last_active_at: last,
        archived_at: archived ? new Date(last.getTime() + HOUR) : null,
        messages: conversation(user, reply),
        error: null,
      });
      const calls: [string, string, string, boolean][] = [
        ["recall_memory", '{"keyword":"偏好"}', "- [2026-07-22 09:30:00] 用户偏好简洁的回复，不用列表。", true],
        ["save_memory", '{"content":"用户更喜欢早上收到简报","scope":"core"}', "已记住", true],
      ];
      if (si === 0 && s.name === "assistant") calls.push(["save_memory", '{"content":"x","scope":"forever"}', "无法识别的记忆分区: forever（应为 core 或 archival）", false]);
      calls.forEach(([tool, input, output, ok], k) => {
        invocations.push({
          id: invId++,
          session_id: id,
          tool_name: tool,
          input_json: input,
          result_json: JSON.stringify(output),
          success: ok,
          error_message: ok ? null : output,
          duration_ms: 3 + si + k,
          created_at: formatTs(new Date(created.getTime() + (k + 1) * 60_000)),
        });
      });
    });
    const skills: SkillDto[] = s.skills.map((n) => ({ name: n, description: SKILLS[n] ?? null, warnings: [] }));
    if (s.brokenSkill) skills.push({ name: s.brokenSkill, description: null, warnings: ["link is broken (its target does not exist)"] });
    return {
      name: s.name,
      hasAgentMd: s.hasAgentMd !== false,
      warnings: s.warnings ?? [],
      skills,
      memory: memoryFor(s, start, opts.now.getTime(), count),
      detail: {
        description: s.description,
        provider: s.provider,
        model: s.model,
        tools: s.tools,
        identity_name: s.identityName ?? null,
        identity_prompt: s.identityPrompt ?? null,
        temperature: s.temperature,
        bootstrap: s.bootstrap,
        max_history_turns: s.maxHistoryTurns,
        schedules_yaml: s.schedules ?? null,
        channels_yaml: s.channels ?? null,
        front_matter_yaml: frontMatterYaml(s),
        body: s.body,
      },
    };
  });
  // One row the runtime wrote badly: its error shows on that session only.
  sessions.push({
    session_id: "web:guest:log_analyst:9",
    agent: "log_analyst",
    channel: "web",
    user_id: "guest",
    status: "active",
    created_at: new Date(start + 20 * DAY),
    last_active_at: new Date(start + 20 * DAY + 5 * 60_000),
    archived_at: null,
    messages: null,
    error: "messages_json is not valid JSON: EOF while parsing a list at line 1 column 118",
  });
  return {
    path,
    agents,
    global: {
      markdown: {
        core: [{ ts: new Date(start), content: "全局：所有 Agent 共用的事实放在这里。" }],
        archival: [{ ts: new Date(start + HOUR), content: "触发「系统自检」⇒ 全部正常" }],
      },
      sqlite: { core: [], archival: [] },
    },
    files: { "USER.md": USER_MD, "AGENTS.md": AGENTS_MD, "SOUL.md": SOUL_MD },
    sessions,
    invocations,
    hasDb: true,
  };
}

/** A second, smaller root, so switching roots in Settings visibly changes every view. */
export function buildTeamRoot(path: string, now: Date): FakeRoot {
  const start = now.getTime() - 3 * DAY;
  const mk = (name: string, description: string, core: string[], archival: string[]): FakeAgent => ({
    name,
    hasAgentMd: true,
    warnings: [],
    skills: [],
    memory: {
      markdown: {
        core: core.map((c, i) => ({ ts: new Date(start + i * HOUR), content: c })),
        archival: archival.map((c, i) => ({ ts: new Date(start + (i + 2) * HOUR), content: c })),
      },
      sqlite: { core: [], archival: [] },
    },
    detail: {
      description,
      provider: "openai",
      model: "gpt-4o-mini",
      tools: ["save_memory", "recall_memory"],
      identity_name: null,
      identity_prompt: null,
      temperature: null,
      bootstrap: ["USER.md"],
      max_history_turns: 10,
      schedules_yaml: null,
      channels_yaml: null,
      front_matter_yaml: `name: ${name}\ndescription: ${description}\n`,
      body: `You are ${name}.\n`,
    },
  });
  return {
    path,
    agents: [
      mk("helpdesk", "Answers team questions", ["Team channel is #ops."], ["触发「VPN 连不上」⇒ 已发送排查步骤"]),
      mk("oncall", "On-call rota helper", [], ["触发「who is on call」⇒ Wang Fang until Monday"]),
    ],
    global: { markdown: { core: [], archival: [] }, sqlite: { core: [], archival: [] } },
    files: { "USER.md": "# Team\n\nShared root of the platform team.\n" },
    sessions: [],
    invocations: [],
    hasDb: false,
  };
}

const pad = (n: number) => String(n).padStart(2, "0");

/** `yyyy-MM-dd HH:mm:ss` local time, the MEMORY.md format. */
export function formatTs(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
