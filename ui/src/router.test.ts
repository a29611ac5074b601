import { describe, expect, it } from "vitest";

import { href, parseRoute } from "./router";

describe("router", () => {
  it("round-trips every route, including session ids with colons", () => {
    const routes = [
      { page: "agents" },
      { page: "agent", name: "log_analyst", tab: "memory" },
      { page: "agent", name: "assistant", tab: "prompt" },
      { page: "agent", name: "assistant", tab: "health" },
      { page: "global" },
      { page: "global", tab: "health" },
      { page: "sessions" },
      { page: "session", id: "cli:linxiao:assistant:0" },
      { page: "sessions", agent: "assistant", status: "archived", q: "证书 & more?", offset: 50 },
      { page: "session", id: "web:a:b", m: 3, q: "certificate" },
      { page: "files", name: "USER.md" },
      { page: "files", name: null },
      { page: "recall" },
      { page: "recall", agent: "assistant", q: "用户喜欢什么样的回答风格 & more?" },
      { page: "settings" },
      { page: "settings", focus: "backend" },
      { page: "agent", name: "assistant", tab: "memory", entry: "c4-e9f6ebdd", find: "用户更喜欢早上收到简报 & more?", session: "feishu:oncall:assistant", m: 5 },
      { page: "global", entry: "a0-12345678" },
      { page: "session", id: "feishu:oncall:assistant", m: 5, why: "origin" },
    ] as const;
    for (const r of routes) expect(parseRoute(href(r))).toEqual(r);
  });
  it("ignores filter values it does not know", () => {
    expect(parseRoute("#/sessions?status=open&offset=-5&agent=")).toEqual({ page: "sessions" });
    expect(parseRoute("#/sessions/x?m=abc")).toEqual({ page: "session", id: "x" });
  });
  it("falls back to the agents list", () => {
    expect(parseRoute("")).toEqual({ page: "agents" });
    expect(parseRoute("#/nope")).toEqual({ page: "agents" });
  });
});
