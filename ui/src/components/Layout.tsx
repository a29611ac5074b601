import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, type ReactNode } from "react";

import { useBackend } from "../backend";
import type { SettingsView } from "../backend/types";
import { useI18n, type MessageKey } from "../i18n";
import { href, navigate, type Route } from "../router";
import { RemoteBanner } from "../features/remote/RemoteBanner";
import { SearchEverywhere } from "../features/search/SearchEverywhere";
import { Icon, type IconName } from "./Icon";

type NavItem = { key: "agents" | "dashboard" | "sessions" | "recall" | "files" | "settings"; icon: IconName; label: MessageKey; route: Route };

const NAV: NavItem[] = [
  { key: "agents", icon: "agents", label: "nav.agents", route: { page: "agents" } },
  { key: "dashboard", icon: "chart", label: "dashboard.nav", route: { page: "dashboard" } },
  { key: "sessions", icon: "sessions", label: "nav.sessions", route: { page: "sessions" } },
  { key: "recall", icon: "recall", label: "nav.recall", route: { page: "recall" } },
  { key: "files", icon: "files", label: "nav.files", route: { page: "files", name: null } },
  { key: "settings", icon: "settings", label: "nav.settings", route: { page: "settings" } },
];

function section(r: Route): NavItem["key"] | "global" {
  switch (r.page) {
    case "agents":
    case "agent":
      return "agents";
    case "global":
      return "global";
    case "sessions":
    case "session":
      return "sessions";
    case "files":
      return "files";
    case "recall":
      return "recall";
    case "dashboard":
      return "dashboard";
    case "settings":
      return "settings";
  }
}

/** After a navigation that took the focused element away (Enter on a row that is gone now), the
 * new page's heading gets the focus, so the keyboard and the screen reader continue from there
 * instead of from <body>. */
function useFocusAfterNavigation(key: string) {
  const first = useRef(true);
  useEffect(() => {
    // Not on the first page: the browser starts at the top of the document itself.
    if (first.current) {
      first.current = false;
      return;
    }
    let tries = 0;
    let id = 0;
    const attempt = () => {
      const a = document.activeElement;
      if (a && a !== document.body && a.isConnected) return;
      const h = document.querySelector<HTMLElement>("#content h1");
      // The heading may come with the page's data: wait for it a few frames.
      if (!h && tries++ < 20) {
        id = requestAnimationFrame(attempt);
        return;
      }
      const target = h ?? document.getElementById("content");
      if (!target) return;
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
    };
    id = requestAnimationFrame(attempt);
    return () => cancelAnimationFrame(id);
  }, [key]);
}

/** What "/" does on a page, as the sidebar tells it: the page's search, its first field, or
 * nothing (then the sidebar does not promise it). */
function slashHint(r: Route): MessageKey | null {
  switch (r.page) {
    case "agents":
    case "sessions":
    case "recall":
    case "global":
      return r.page === "global" && r.tab === "health" ? null : "common.shortcutSearch";
    case "agent":
      return r.tab === "memory" ? "common.shortcutSearch" : r.tab === "prompt" ? "common.shortcutField" : null;
    case "settings":
      return "common.shortcutField";
    case "files":
    case "session":
    case "dashboard":
      return null;
  }
}

export function Layout({ route, view, children }: { route: Route; view: SettingsView | undefined; children: ReactNode }) {
  const { t } = useI18n();
  const backend = useBackend();
  const active = section(route);
  useFocusAfterNavigation(href(route));
  return (
    <div className="app">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">O</span>
          <span className="brand-name">{t("app.title")}</span>
        </div>
        <ul className="nav">
          {NAV.map((n) => (
            <li key={n.key}>
              <a href={href(n.route)} className={active === n.key ? "nav-item active" : "nav-item"} aria-current={active === n.key ? "page" : undefined} data-testid={`nav-${n.key}`}>
                <Icon name={n.icon} />
                <span>{t(n.label)}</span>
              </a>
            </li>
          ))}
          <li className="nav-sep" aria-hidden="true" />
          <li>
            <a href={href({ page: "global" })} className={active === "global" ? "nav-item active" : "nav-item"} aria-current={active === "global" ? "page" : undefined} data-testid="nav-global">
              <Icon name="globe" />
              <span>{t("nav.global")}</span>
            </a>
          </li>
        </ul>
        {slashHint(route) ? <div className="sidebar-foot" data-testid="slash-hint">{t(slashHint(route)!)}</div> : null}
      </nav>
      <div className="main">
        <RemoteBanner />
        <header className="header">
          <div className="header-root" title={view?.effective.root}>
            <span className="header-label">{t("header.root")}</span>
            {view ? (
              <code className="root-label" data-testid="root-label">
                {view.effective.root || t("header.noRoot")}
              </code>
            ) : (
              <span className="skeleton-line header-skeleton" />
            )}
          </div>
          {view && !view.effective.first_run ? <SearchEverywhere /> : null}
          <div className="header-badges">
            {view ? (
              <span className={`badge badge-backend badge-${view.effective.backend}`} title={t("header.backend")} data-testid="backend-badge">
                <span className="sr-only">{t("header.backendLabel", { backend: "" })}</span>
                {view.effective.backend}
              </span>
            ) : null}
            <span className="badge badge-muted" title={t("header.transport", { kind: backend.kind })} data-testid="transport-badge">
              <span className="sr-only">{t("header.transportLabel", { kind: "" })}</span>
              {backend.kind}
            </span>
          </div>
        </header>
        <main className="content" id="content">
          {view?.effective.notice ? (
            <div className="banner banner-warn" role="alert" data-testid="startup-notice">
              <Icon name="warning" />
              <div>
                <strong>{t("notice.title")}</strong>
                <div className="banner-sub">{view.effective.notice}</div>
                <a href={href({ page: "settings" })}>{t("notice.openSettings")}</a>
              </div>
            </div>
          ) : null}
          {view?.effective.root_problem && !view.effective.first_run ? (
            <div className="banner banner-err" role="alert" data-testid="root-problem">
              <Icon name="warning" />
              <div>
                <strong>{t("rootProblem.title")}</strong>
                <div className="banner-sub">{view.effective.root_problem}</div>
                <a href={href({ page: "settings" })}>{t("rootProblem.pick")}</a>
              </div>
            </div>
          ) : null}
          {view?.effective.backend_problem ? <BackendProblem view={view} /> : null}
          {view ? <BackendOverride view={view} /> : null}
          {children}
        </main>
      </div>
    </div>
  );
}

/** On a runtime install the console shows another backend than the agents use (a `--backend`
 * flag or a saved override): said on every page, with the way back when the settings did it. */
function BackendOverride({ view }: { view: SettingsView }) {
  const { t } = useI18n();
  const backend = useBackend();
  const qc = useQueryClient();
  const e = view.effective;
  if (e.root_kind !== "install" || !e.runtime_backend || e.runtime_backend === e.backend) return null;
  const names = { runtime: e.runtime_backend, viewing: e.backend };
  return (
    <div className="banner banner-warn" role="status" data-testid="backend-override">
      <Icon name="warning" />
      <div>
        <strong>{t("runtime.override", names)}</strong>
        <div className="banner-sub">{t("runtime.overrideHint", { ...names, by: e.backend_override ?? "" })}</div>
      </div>
      {e.backend_override === "settings" ? (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => void backend.call("update_settings", { ...view.settings, backend_override: null }).then(() => qc.invalidateQueries())}
          data-testid="backend-override-clear"
        >
          {t("runtime.overrideClear", names)}
        </button>
      ) : null}
    </div>
  );
}

/** The memory backend could not be reached at its last call (mem0 down or at a wrong URL): stays
 * until a call reaches it, with the console's reason and a way back to the backend choice. */
function BackendProblem({ view }: { view: SettingsView }) {
  const { t } = useI18n();
  const e = view.effective;
  const url = e.mem0_base_url;
  return (
    <div className="banner banner-err backend-problem" role="alert" data-testid="backend-problem">
      <Icon name="error" />
      <div className="backend-problem-text">
        <strong data-testid="backend-problem-title">{url ? t("backendProblem.title", { url }) : t("backendProblem.titleNoUrl")}</strong>
        <div className="banner-sub mono wrap" data-testid="backend-problem-reason">
          {e.backend_problem}
        </div>
        <div className="banner-sub">{t("backendProblem.hint")}</div>
      </div>
      <button type="button" className="btn btn-small" onClick={() => navigate({ page: "settings", focus: "backend" })} data-testid="backend-problem-switch">
        {t("backendProblem.switch")}
      </button>
    </div>
  );
}
