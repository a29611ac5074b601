import { useI18n } from "../../i18n";
import { MemoryTab } from "./MemoryTab";

export function GlobalMemoryPage() {
  const { t } = useI18n();
  return (
    <div className="page page-agent">
      <div className="page-head">
        <h1>{t("memory.globalTitle")}</h1>
        <span className="page-sub">{t("memory.globalSubtitle")}</span>
      </div>
      <div className="tab-body">
        <MemoryTab agent={null} />
      </div>
    </div>
  );
}
