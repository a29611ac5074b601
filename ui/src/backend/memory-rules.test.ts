import { describe, expect, it } from "vitest";

import { charCount, computeWindow, estimateTokens, matchesKeyword, sanitizeContent } from "./memory-rules";

describe("memory rules (mirror of oryx-core)", () => {
  it("keeps the newest entries that fit", () => {
    const lines = ["aaaa", "bbbb", "cccc"];
    expect(computeWindow(lines, 9)).toEqual({ firstInWindow: 1, text: "bbbb\ncccc", newestCut: false });
    expect(computeWindow(lines, 8).firstInWindow).toBe(2);
    expect(computeWindow(lines, 14).firstInWindow).toBe(0);
  });

  it("counts Unicode scalar values", () => {
    expect(charCount("记忆😀")).toBe(3);
    expect(computeWindow(["记忆记忆", "归档归档"], 9).firstInWindow).toBe(0);
    expect(computeWindow(["记忆记忆", "归档归档"], 8).firstInWindow).toBe(1);
  });

  it("cuts a newest entry longer than the limit from its start", () => {
    const w = computeWindow(["old", "0123456789"], 5);
    expect(w).toEqual({ firstInWindow: 1, text: "…6789", newestCut: true });
  });

  it("sanitises content to one line", () => {
    expect(sanitizeContent("  a\r\nb  \t c\n")).toBe("a b \t c");
    expect(sanitizeContent("x\n## 核心记忆\n- y ## 归档记忆")).toBe("x 「核心记忆」 - y 「归档记忆」");
    expect(sanitizeContent("##   核心记忆")).toBe("「核心记忆」");
    expect(sanitizeContent(" \n ")).toBe("");
  });

  it("recall is a case-insensitive substring match", () => {
    expect(matchesKeyword("Connection Pool exhausted", "pool")).toBe(true);
    expect(matchesKeyword("连接池耗尽", "连接池")).toBe(true);
    expect(matchesKeyword("abc", "x")).toBe(false);
  });

  it("estimates tokens like the backend", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("记忆abcde")).toBe(4);
  });
});
