import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { foldSame, TextDiff } from "./TextConflict";

describe("TextDiff", () => {
  it("folds a long unchanged run, keeping two lines of context next to each change", () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const before = lines.join("\n");
    const after = lines.map((l, i) => (i === 10 ? "changed" : l)).join("\n");
    const { container } = render(<TextDiff before={before} after={after} testId="d" />);
    const text = container.textContent ?? "";
    expect(text).toContain("⋯ 7 unchanged lines");
    expect(text).toContain("line 8\nline 9\n");
    expect(text).toContain("line 11\nline 12");
    expect(text).not.toContain("line 5");
    expect(container.querySelector("ins")).toHaveTextContent("changed");
  });

  it("leaves short runs alone", () => {
    expect(foldSame("a\nb\nc", false, false)).toBeNull();
    expect(foldSame("x\n1\n2\n3\n4\n5\ny", false, true)).toEqual({ head: "x\n1\n2", hidden: 4, tail: "" });
  });
});
