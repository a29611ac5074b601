import { describe, expect, it } from "vitest";

import { displayCount, posOfRow, rowAt, rowOfIndex, shapeOf } from "./archival";

const overview = (total: number, first: number) => ({
  archival_total: total,
  window: { limit_chars: 100, first_in_window: first, in_window_entries: total - first, in_window_chars: 0, outside_entries: first, outside_chars: 0, newest_cut: false, window_rule: { kind: "wholeEntries", limit: 100 }, partial_kept: null },
});

describe("the paged archival list", () => {
  it("puts the cut line between the outside and inside runs in both orders", () => {
    const asc = shapeOf(overview(4, 2), "asc");
    expect(asc).toEqual({ total: 4, cutAt: 2 });
    expect(Array.from({ length: displayCount(asc) }, (_, p) => rowAt(asc, p))).toEqual([0, 1, "cut", 2, 3]);
    const desc = shapeOf(overview(5, 2), "desc");
    expect(desc).toEqual({ total: 5, cutAt: 3 });
    // Rows 0..2 are the newest (in the window), then the cut, then the two outside.
    expect(Array.from({ length: displayCount(desc) }, (_, p) => rowAt(desc, p))).toEqual([0, 1, 2, "cut", 3, 4]);
  });
  it("has no cut when everything (or nothing) is in the window", () => {
    expect(shapeOf(overview(3, 0), "asc").cutAt).toBeNull();
    expect(shapeOf(overview(0, 0), "desc").cutAt).toBeNull();
    expect(displayCount({ total: 3, cutAt: null })).toBe(3);
  });
  it("maps entries to display positions", () => {
    const s = { total: 10, cutAt: 4 };
    expect(posOfRow(s, 3)).toBe(3);
    expect(posOfRow(s, 4)).toBe(5);
    expect(rowOfIndex(10, 9, "asc")).toBe(9);
    expect(rowOfIndex(10, 9, "desc")).toBe(0);
    for (let row = 0; row < 10; row++) expect(rowAt(s, posOfRow(s, row))).toBe(row);
  });
});
