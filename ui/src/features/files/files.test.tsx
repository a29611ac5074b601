import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendError } from "../../backend";
import { recordedResult } from "../../test/recorded";
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

  it("edits a file: Save sends the text with the version it was read with; Cancel keeps the file", async () => {
    const { backend } = renderApp("#/files/USER.md");
    await screen.findByTestId("file-markdown");
    const user = recordedResult("demo", "bootstrap_files", {}).find((f) => f.name === "USER.md")!;
    expect(user.version).toMatch(/^[0-9a-f]+$/);
    backend.stub("save_bootstrap_file", (a) => ({ ...user, content: (a as { text: string }).text, version: "next" }));
    fireEvent.click(screen.getByTestId("file-edit"));
    const text = screen.getByTestId("file-text");
    expect(text).toHaveValue(user.content);
    fireEvent.change(text, { target: { value: "scratch" } });
    fireEvent.click(screen.getByTestId("file-cancel"));
    expect(screen.queryByTestId("file-editor")).toBeNull();
    fireEvent.click(screen.getByTestId("file-edit"));
    fireEvent.change(screen.getByTestId("file-text"), { target: { value: `${user.content}\n- 喜欢绿茶\n` } });
    expect(screen.getByTestId("file-diff").querySelector("ins")).toHaveTextContent("喜欢绿茶");
    fireEvent.click(screen.getByTestId("file-save"));
    await waitFor(() => expect(screen.queryByTestId("file-editor")).toBeNull());
    expect(backend.calls.filter((c) => c.op === "save_bootstrap_file").map((c) => c.args)).toEqual([
      { name: "USER.md", text: `${user.content}\n- 喜欢绿茶\n`, version: user.version },
    ]);
  });

  it("on a conflict shows the file on disk; taking it drops the edit", async () => {
    const { backend } = renderApp("#/files/USER.md");
    await screen.findByTestId("file-markdown");
    const user = recordedResult("demo", "bootstrap_files", {}).find((f) => f.name === "USER.md")!;
    backend.stub("save_bootstrap_file", () => {
      throw new BackendError("conflict", "USER.md changed since it was read");
    });
    fireEvent.click(screen.getByTestId("file-edit"));
    fireEvent.change(screen.getByTestId("file-text"), { target: { value: "mine" } });
    fireEvent.click(screen.getByTestId("file-save"));
    const conflict = await screen.findByTestId("file-conflict");
    // The recorded bootstrap_files is what is on disk now.
    await waitFor(() => expect(within(conflict).getByTestId("file-conflict-disk").textContent).toBe(user.content));
    expect(within(conflict).getByTestId("file-conflict-mine")).toHaveTextContent("mine");
    fireEvent.click(within(conflict).getByTestId("file-conflict-take"));
    expect(screen.getByTestId("file-text")).toHaveValue(user.content);
    expect(screen.queryByTestId("file-conflict")).toBeNull();
  });
});
