import { Tabs } from "../../components/Tabs";
import { useI18n } from "../../i18n";
import { href } from "../../router";
import { HealthTab } from "../health/HealthTab";
import { MemoryTab } from "./MemoryTab";

export function GlobalMemoryPage({ tab = "memory" }: { tab?: "memory" | "health" }) {
  const { t } = useI18n();
  const tabs = [
    { key: "memory" as const, label: t("agent.tab.memory"), href: href({ page: "global" }) },
    { key: "health" as const, label: t("agent.tab.health"), href: href({ page: "global", tab: "health" }) },
  ];
  return (
    <div className="page page-agent">
      <div className="page-head">
        <h1>{t("memory.globalTitle")}</h1>
        <span className="page-sub">{t("memory.globalSubtitle")}</span>
      </div>
      <Tabs tabs={tabs} active={tab} />
      <div className="tab-body" role="tabpanel">
        {tab === "health" ? <HealthTab agent={null} /> : <MemoryTab agent={null} />}
      </div>
    </div>
  );
}
