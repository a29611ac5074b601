import { describe, expect, it } from "vitest";

import type { ArchivalEntryDto } from "../../backend/types";
import { displayItems } from "./archival";

const e = (content: string, in_window: boolean): ArchivalEntryDto => ({ timestamp: null, content, line: `- ${content}`, in_window });

describe("displayItems", () => {
  const entries = [e("a1", false), e("b2", false), e("a3", true), e("b4", true)];
  it("puts the cut line between the outside and inside runs", () => {
    expect(displayItems(entries, "", "asc")).toEqual([0, 1, "cut", 2, 3]);
    expect(displayItems(entries, "", "desc")).toEqual([3, 2, "cut", 1, 0]);
  });
  it("filters by keyword and keeps the cut only when both sides are shown", () => {
    expect(displayItems(entries, "A", "asc")).toEqual([0, "cut", 2]);
    expect(displayItems(entries, "4", "asc")).toEqual([3]);
  });
  it("has no cut when everything is in the window", () => {
    expect(displayItems([e("x", true), e("y", true)], "", "asc")).toEqual([0, 1]);
  });
});
