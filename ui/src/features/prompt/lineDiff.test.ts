import { describe, expect, it } from "vitest";

import { diffLines, foldSame } from "./lineDiff";

describe("diffLines", () => {
  it("keeps the common lines and marks the others, in order", () => {
    const then = "## 核心记忆\n- a\n- b\n## 归档记忆\n- x";
    const now = "## 核心记忆\n- a\n- b\n- c\n## 归档记忆\n- y";
    expect(diffLines(then, now)).toEqual([
      { kind: "same", line: "## 核心记忆" },
      { kind: "same", line: "- a" },
      { kind: "same", line: "- b" },
      { kind: "add", line: "- c" },
      { kind: "same", line: "## 归档记忆" },
      { kind: "del", line: "- x" },
      { kind: "add", line: "- y" },
    ]);
  });
  it("folds runs of unchanged lines into counts", () => {
    expect(foldSame(diffLines("a\nb\nc", "a\nb\nd"))).toEqual([
      { kind: "same", count: 2 },
      { kind: "del", line: "c" },
      { kind: "add", line: "d" },
    ]);
    expect(diffLines("", "")).toEqual([]);
  });
});
