import { useState } from "react";

import { Tabs } from "../../components/Tabs";
import { requestWarningsFocus, WarningBadge } from "../../components/Warnings";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { href, navigate, type AgentTab } from "../../router";
import { HealthTab } from "../health/HealthTab";
import { MemoryTab } from "../memory/MemoryTab";
import { SupersededTab } from "../superseded/SupersededTab";
import { PromptTab } from "../prompt/PromptTab";
import { ExportDialog } from "../transfer/ExportDialog";
import { OverviewTab } from "./OverviewTab";
import "./agents.css";

export function AgentPage({ name, tab }: { name: string; tab: AgentTab }) {
  const { t } = useI18n();
  const agents = useOp("list_agents", {});
  const summary = agents.data?.agents.find((a) => a.name === name);
  const [exporting, setExporting] = useState(false);
  const tabs = (["memory", "prompt", "overview", "health", "superseded"] as const).map((k) => ({
    key: k,
    label: t(`agent.tab.${k}`),
    href: href({ page: "agent", name, tab: k }),
  }));
  return (
    <div className="page page-agent">
      <div className="page-head">
        <a className="crumb" href={href({ page: "agents" })}>
          {t("nav.agents")}
        </a>
        <span className="crumb-sep">/</span>
        <h1 data-testid="agent-title">{name}</h1>
        {summary?.description ? <span className="page-sub">{summary.description}</span> : null}
        {summary ? (
          <WarningBadge
            warnings={summary.warnings}
            testId="agent-warnings"
            onActivate={() => {
              // To the problem: the overview lists the warnings (the front matter error among them).
              const list = document.querySelector<HTMLElement>('[data-testid="overview-warnings"]');
              if (tab === "overview" && list) {
                list.scrollIntoView?.({ block: "center" });
                list.focus({ preventScroll: true });
                return;
              }
              requestWarningsFocus();
              navigate({ page: "agent", name, tab: "overview" });
            }}
          />
        ) : null}
        {summary ? (
          <>
            <span className="spacer" />
            <button type="button" className="btn" onClick={() => setExporting(true)} title={t("export.buttonTitle")} data-testid="agent-export">
              {t("export.button")}
            </button>
          </>
        ) : null}
      </div>
      {exporting ? <ExportDialog agents={[name]} onClose={() => setExporting(false)} /> : null}
      {agents.data && !summary ? (
        <ErrorState error={{ code: "agent_not_found", message: `${t("agent.notFound")}: ${name}` }} />
      ) : (
        <>
          <Tabs tabs={tabs} active={tab} />
          <div className="tab-body" role="tabpanel">
            {tab === "memory" ? (
              <MemoryTab agent={name} />
            ) : tab === "prompt" ? (
              <PromptTab agent={name} />
            ) : tab === "health" ? (
              <HealthTab agent={name} />
            ) : tab === "superseded" ? (
              <SupersededTab agent={name} />
            ) : (
              <OverviewTab name={name} />
            )}
          </div>
        </>
      )}
    </div>
  );
}
