import { describe, expect, it } from "vitest";

import { diffWords, tokens } from "./diff";

const read = (segs: ReturnType<typeof diffWords>, skip: "ins" | "del") =>
  segs
    .filter((s) => s.kind !== skip)
    .map((s) => s.text)
    .join("");

describe("the History panel's word diff", () => {
  it("marks the changed word only", () => {
    const d = diffWords("Booked the design review for Tuesday 10:00.", "Booked the design review for Wednesday 10:00.");
    expect(d).toEqual([
      { kind: "same", text: "Booked the design review for " },
      { kind: "del", text: "Tuesday" },
      { kind: "ins", text: "Wednesday" },
      { kind: "same", text: " 10:00." },
    ]);
  });
  it("keeps a word that only gained a neighbour", () => {
    const d = diffWords("Reminder set for Friday 10:00（第 63 次）", "Reminder set for Friday 10:00 ## 备注 （第 63 次）");
    expect(d.filter((s) => s.kind !== "same")).toEqual([{ kind: "ins", text: " ## 备注 " }]);
  });
  it("splits Chinese by character", () => {
    expect(tokens("周末不要")).toEqual(["周", "末", "不", "要"]);
    const d = diffWords("周末不要安排会议。", "周末可以安排会议。");
    expect(d.filter((s) => s.kind !== "same").map((s) => [s.kind, s.text])).toEqual([
      ["del", "不要"],
      ["ins", "可以"],
    ]);
  });
  it("reads back both versions", () => {
    const pairs = [
      ["a b c", "a x c d"],
      ["", "new"],
      ["old", ""],
      ["提醒：周五 10:00 续期 TLS 证书。", "提醒：周四 09:30 续期证书"],
    ] as const;
    for (const [before, after] of pairs) {
      const d = diffWords(before, after);
      expect(read(d, "ins")).toBe(before);
      expect(read(d, "del")).toBe(after);
    }
  });
});
