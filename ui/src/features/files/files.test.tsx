import { fireEvent, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderApp } from "../../test/render";

describe("Files", () => {
  it("renders USER.md and toggles to the raw text", async () => {
    renderApp("#/files");
    const md = await screen.findByTestId("file-markdown");
    expect(md.querySelector("h2")).toHaveTextContent("关于我");
    fireEvent.click(screen.getByTestId("file-raw"));
    expect(screen.getByTestId("file-raw-text").textContent).toContain("# 关于我");
  });

  it("marks a bootstrap file that does not exist", async () => {
    renderApp("#/files/NOTES.md");
    expect(await screen.findByTestId("file-NOTES.md")).toHaveTextContent("missing");
    expect(screen.getByTestId("file-view")).toHaveTextContent("This file does not exist");
  });
});
