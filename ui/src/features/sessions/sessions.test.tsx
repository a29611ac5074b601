import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderApp } from "../../test/render";

const BAD = "web:guest:log_analyst";

describe("Sessions", () => {
  it("lists sessions with paging info and filters by agent and status", async () => {
    renderApp("#/sessions");
    await screen.findByTestId("sessions-table");
    expect(screen.getAllByTestId(/^session-row-/)).toHaveLength(9);
    expect(screen.getByTestId("sessions-paging")).toHaveTextContent("1–9 of 9");
    fireEvent.change(screen.getByTestId("sessions-agent"), { target: { value: "log_analyst" } });
    await waitFor(() => expect(screen.getAllByTestId(/^session-row-/)).toHaveLength(3));
    fireEvent.change(screen.getByTestId("sessions-agent"), { target: { value: "" } });
    fireEvent.change(screen.getByTestId("sessions-status"), { target: { value: "archived" } });
    await waitFor(() => expect(screen.getAllByTestId(/^session-row-/)).toHaveLength(1));
    expect(screen.getByTestId("session-row-web:chen.wei:assistant")).toBeInTheDocument();
  });

  it("searches session ids and user ids", async () => {
    renderApp("#/sessions");
    await screen.findByTestId("sessions-table");
    fireEvent.change(screen.getByTestId("sessions-search"), { target: { value: "ops-bot" } });
    await waitFor(() => expect(screen.getAllByTestId(/^session-row-/)).toHaveLength(2), { timeout: 2000 });
    for (const id of ["feishu:ops-bot:assistant", "web:ops-bot:log_analyst"]) expect(screen.getByTestId(`session-row-${id}`)).toBeInTheDocument();
  });

  it("searches what was said, shows where it matched and opens that message", async () => {
    renderApp("#/sessions");
    await screen.findByTestId("sessions-table");
    fireEvent.change(screen.getByTestId("sessions-search"), { target: { value: "certificate" } });
    await waitFor(() => expect(screen.getAllByTestId(/^session-row-/)).toHaveLength(1), { timeout: 2000 });
    const match = screen.getByTestId("session-match");
    expect(match).toHaveTextContent("message 1 (User): Remind me to renew the TLS certificate");
    expect(match.querySelector("mark")).toHaveTextContent("certificate");
    expect(window.location.hash).toBe("#/sessions?q=certificate");
    fireEvent.click(screen.getByTestId("session-row-web:chen.wei:assistant"));
    await waitFor(() => expect(window.location.hash).toBe("#/sessions/web%3Achen.wei%3Aassistant?m=0&q=certificate"));
    const marked = await screen.findByText("Remind me to renew the TLS certificate");
    expect(marked.closest('[data-testid="message"]')).toHaveAttribute("aria-current", "true");
  });

  it("marks the unreadable row in the list", async () => {
    renderApp("#/sessions");
    const row = await screen.findByTestId(`session-row-${BAD}`);
    expect(row).toHaveTextContent("unreadable");
  });

  it("shows the error card only for the session whose messages cannot be read", async () => {
    renderApp(`#/sessions/${encodeURIComponent(BAD)}`);
    const card = await screen.findByTestId("session-error");
    expect(card).toHaveTextContent("is not valid JSON");
    expect(screen.queryAllByTestId("message")).toHaveLength(0);

    window.location.hash = `#/sessions/${encodeURIComponent("feishu:linxiao:log_analyst")}`;
    await waitFor(() => expect(screen.getAllByTestId("message")).toHaveLength(8));
    expect(screen.queryByTestId("session-error")).toBeNull();
  });

  it("renders the conversation with tool calls and the tool invocations table", async () => {
    renderApp(`#/sessions/${encodeURIComponent("cli:linxiao:assistant")}`);
    await waitFor(() => expect(screen.getAllByTestId("message")).toHaveLength(8));
    const calls = screen.getAllByTestId("tool-call");
    expect(calls[0]).toHaveTextContent("recall_memory");
    expect(calls[0]).toHaveTextContent('"keyword": "偏好"');
    expect(screen.getAllByTestId("message")[2]).toHaveAttribute("data-role", "tool");
    const table = await screen.findByTestId("tool-invocations");
    const rows = within(table).getAllByTestId("tool-invocation");
    expect(rows).toHaveLength(3);
    expect(within(table).getAllByText("fail")).toHaveLength(1);
    expect(table).toHaveTextContent("无法识别的记忆分区: forever");
    expect(table).toHaveTextContent("已记住");
  });

  it("opens a session from the list with Enter", async () => {
    renderApp("#/sessions");
    const row = await screen.findByTestId("session-row-cli:linxiao:assistant");
    row.focus();
    fireEvent.keyDown(row, { key: "Enter" });
    expect(await screen.findByTestId("session-title")).toHaveTextContent("cli:linxiao:assistant");
  });
});
