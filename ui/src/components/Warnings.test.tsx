import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { WarningCode, WarningDto } from "../backend/types";
import { I18nProvider, translate } from "../i18n";
import { recordedResult } from "../test/recorded";
import { WarningBadge, WarningList, warningText } from "./Warnings";

function list(lang: "en" | "zh", warnings: WarningDto[]) {
  return render(
    <I18nProvider lang={lang}>
      <WarningList warnings={warnings} testId="list" />
    </I18nProvider>,
  );
}

const t = (lang: "en" | "zh") => (k: Parameters<typeof translate>[1], v?: Parameters<typeof translate>[2]) => translate(lang, k, v);

// The demo root's warnings as `oryx serve` sent them.
const agents = recordedResult("demo", "list_agents", {}).agents;
const researcher = recordedResult("demo", "get_agent", { name: "researcher" });
const writerPrompt = recordedResult("demo", "prompt_preview", { agent: "writer", session_id: null });
const recorded: WarningDto[] = [
  ...agents.flatMap((a) => a.warnings),
  ...researcher.summary.warnings,
  ...researcher.skills.flatMap((s) => s.warnings),
  ...writerPrompt.warnings,
];
const byCode = (code: WarningCode, skill = false) => recorded.find((w) => w.code === code && (w.params.skill !== undefined) === skill)!;

describe("Warnings from the demo root", () => {
  // Each recorded code, its headline in both languages.
  const cases: [WarningCode, boolean, string, string][] = [
    ["agent_md_missing", false, "AGENT.md is missing.", "缺少 AGENT.md。"],
    ["front_matter_invalid", false, "The front matter of AGENT.md is not valid YAML.", "AGENT.md 的前置元数据不是有效的 YAML。"],
    ["agent_name_mismatch", false, "AGENT.md gives the name “author”, but the folder is “writer”.", "AGENT.md 给出的名称是“author”，但文件夹是“writer”。"],
    ["skill_link_broken", true, "Skill pdf-reader: The link is broken: its target does not exist.", "技能 pdf-reader：链接已失效：其目标不存在。"],
    ["skill_link_broken", false, "The link is broken: its target does not exist.", "链接已失效：其目标不存在。"],
    ["bootstrap_missing", false, "The bootstrap file NOTES.md does not exist: the runtime skips it.", "引导文件 NOTES.md 不存在：运行时会跳过它。"],
  ];
  it.each(cases)("%s (on an agent: %s) leads in the user's language, core's message behind Details", (code, skill, en, zh) => {
    const w = byCode(code, skill);
    expect(w, code).toBeDefined();
    for (const [lang, text] of [
      ["en", en],
      ["zh", zh],
    ] as const) {
      const { unmount } = list(lang, [w]);
      const item = within(screen.getByTestId("list")).getByRole("listitem");
      expect(item.querySelector(".warning-text")).toHaveTextContent(text);
      const details = item.querySelector("details")!;
      expect(details).not.toHaveAttribute("open");
      expect(details.querySelector("summary")).toHaveTextContent(lang === "en" ? "Details" : "详细信息");
      fireEvent.click(details.querySelector("summary")!);
      expect(details.querySelector(".error-message")).toHaveTextContent(w.message);
      unmount();
    }
  });

  it("keeps the parser's error out of the headline", () => {
    const w = byCode("front_matter_invalid");
    expect(w.params.detail).toMatch(/tab character/);
    expect(warningText(t("en"), w)).not.toMatch(/tab character/);
    expect(w.message).toMatch(/tab character/);
  });

  it("names the warnings in the user's language in a badge, the message as each item's title", () => {
    render(
      <I18nProvider lang="zh">
        <WarningBadge warnings={[byCode("agent_md_missing")]} testId="badge" />
      </I18nProvider>,
    );
    const badge = screen.getByTestId("badge");
    expect(badge).toHaveAccessibleName("警告: 缺少 AGENT.md。");
    fireEvent.focus(badge);
    const item = within(screen.getByTestId("badge-pop")).getByRole("listitem");
    expect(item).toHaveTextContent("缺少 AGENT.md。");
    expect(item).toHaveAttribute("title", "AGENT.md is missing");
  });
});

// Every code with the params Rust gives it: both languages fill every placeholder.
const PARAMS: Record<WarningCode, Record<string, string>> = {
  agent_name_invalid: { name: "bad name" },
  agent_dir_outside_root: {},
  agent_md_missing: {},
  agent_md_unreadable: { detail: "permission denied" },
  agent_md_not_utf8: {},
  front_matter_invalid: { file: "SKILL.md", detail: "mapping values are not allowed" },
  agent_name_mismatch: { declared: "author", name: "writer" },
  max_history_turns_invalid: { value: '"many"', default: "20" },
  schedules_not_list: {},
  schedule_id_key_differ: { index: "4", id: "y", key: "x" },
  schedule_no_key: { index: "0" },
  schedule_no_name: { index: "1", key: "k" },
  schedule_key_duplicate: { index: "3", key: "legacy" },
  schedule_cron_fields: { index: "2", key: "daily", cron: "0 9 * * *", fields: "5" },
  skill_link_broken: {},
  skill_outside_root: {},
  skill_md_missing: {},
  skill_md_unreadable: { detail: "is a FIFO" },
  skill_name_mismatch: { declared: "other" },
  bootstrap_missing: { file: "NOTES.md" },
  bootstrap_unreadable: { file: "USER.md", detail: "is a FIFO" },
  session_messages_unreadable: { detail: "messages_json is not a JSON array" },
  root_missing: {},
  root_not_folder: {},
  root_no_agents: {},
};

describe("Every warning code", () => {
  it.each(Object.entries(PARAMS) as [WarningCode, Record<string, string>][])("%s has a sentence in English and Chinese", (code, params) => {
    const w: WarningDto = { code, params, message: `the English message of ${code}` };
    const en = warningText(t("en"), w);
    const zh = warningText(t("zh"), w);
    for (const s of [en, zh]) {
      expect(s).not.toMatch(/\{\w+\}/);
      expect(s).not.toBe(w.message);
      for (const [k, v] of Object.entries(params)) if (k !== "detail") expect(s, k).toContain(v);
    }
    expect(en).not.toBe(zh);
  });

  it("falls back to core's English message for a code this UI does not know", () => {
    const w = { code: "brand_new_problem", params: { file: "X.md" }, message: "X.md is odd in a new way" } as unknown as WarningDto;
    expect(warningText(t("zh"), w)).toBe("X.md is odd in a new way");
    list("zh", [w]);
    const item = within(screen.getByTestId("list")).getByRole("listitem");
    expect(item).toHaveTextContent("X.md is odd in a new way");
    // The message is the headline: no Details repeating it.
    expect(item.querySelector("details")).toBeNull();
  });
});
