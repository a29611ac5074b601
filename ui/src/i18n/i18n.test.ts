import { describe, expect, it } from "vitest";

import { en } from "./en";
import { resolveLang, systemLang, translate } from "./index";
import { zh } from "./zh";

describe("i18n", () => {
  it("has the same keys and placeholders in both languages", () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    const vars = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const k of Object.keys(en) as (keyof typeof en)[]) expect(vars(zh[k])).toEqual(vars(en[k]));
  });
  it("fills placeholders", () => {
    expect(translate("en", "memory.banner", { n: 3, m: 120, l: 4000 })).toBe("3 entries / 120 characters outside the window (limit 4000)");
    expect(translate("zh", "memory.banner", { n: 3, m: 120, l: 4000 })).toBe("窗口外 3 条 / 120 字符（上限 4000）");
  });
  it("uses the singular form for one, where English has one", () => {
    expect(translate("en", "session.turns", { n: 1 })).toBe("1 turn");
    expect(translate("en", "session.turns", { n: 2 })).toBe("2 turns");
    expect(translate("en", "session.turns", { n: 0 })).toBe("0 turns");
    expect(translate("zh", "session.turns", { n: 1 })).toBe("1 轮");
    expect(translate("en", "memory.banner", { n: 1, m: 40, l: 4000 })).toBe("1 entry / 40 characters outside the window (limit 4000)");
    // Counts formatted with `num` are strings.
    expect(translate("en", "memory.banner", { n: "1", m: "40", l: "4,000" })).toBe("1 entry / 40 characters outside the window (limit 4,000)");
  });
  it("uses the singular form when the count is not the message's only number (#18 item 17)", () => {
    const history = (lang: "en" | "zh", turns: number, messages: number) =>
      translate(lang, "prompt.history", { turns: translate(lang, "prompt.turns", { n: turns }), messages: translate(lang, "prompt.messages", { n: messages }), max: 20 });
    expect(history("en", 1, 2)).toBe("1 turn / 2 messages of max 20");
    expect(history("en", 2, 1)).toBe("2 turns / 1 message of max 20");
    expect(history("zh", 1, 2)).toBe("1 轮 / 2 条消息（上限 20 轮）");
    expect(translate("en", "index.total", { indexed: 1, n: 1 })).toBe("1 of 1 entry indexed");
    expect(translate("en", "migrate.progress", { done: 0, n: 1 })).toBe("0 of 1 entry");
  });
  it("names the count n in every message with a singular form (n picks the form)", () => {
    for (const k of Object.keys(en)) if (k.endsWith("_one")) expect(en[k.slice(0, -4) as keyof typeof en], k).toContain("{n}");
  });
  it("follows the setting, else the system language", () => {
    expect(resolveLang("zh")).toBe("zh");
    expect(resolveLang("en")).toBe("en");
    expect(systemLang({ language: "zh-CN" })).toBe("zh");
    expect(systemLang({ language: "de-DE" })).toBe("en");
  });
});
