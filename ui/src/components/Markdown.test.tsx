import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { Markdown } from "./Markdown";

describe("Markdown", () => {
  it("renders headings, lists, code, bold and italic", () => {
    const { container } = render(<Markdown source={"# Title\n\nSome **bold** and *it* and `code`.\n\n- one\n- two\n\n1. first\n\n```\nlet x = 1;\n```\n"} />);
    expect(container.querySelector("h2")).toHaveTextContent("Title");
    expect(container.querySelector("strong")).toHaveTextContent("bold");
    expect(container.querySelector("em")).toHaveTextContent("it");
    expect(container.querySelector("p code")).toHaveTextContent("code");
    expect(container.querySelectorAll("ul li")).toHaveLength(2);
    expect(container.querySelectorAll("ol li")).toHaveLength(1);
    expect(container.querySelector("pre code")).toHaveTextContent("let x = 1;");
  });

  it("never renders raw HTML", () => {
    const { container } = render(<Markdown source={'<script>alert(1)</script>\n\n<img src=x onerror="alert(2)"> [link](javascript:alert(3))'} />);
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("a")).toBeNull();
    expect(container.textContent).toContain("<script>alert(1)</script>");
  });
});
