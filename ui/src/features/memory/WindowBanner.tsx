import type { WindowDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { useI18n } from "../../i18n";

/** Names the rule that cuts the window: the runtime's for a root it reads, else the console's. */
export function windowRuleText(w: WindowDto, t: ReturnType<typeof useI18n>["t"], num: (n: number) => string): string {
  const l = num(w.window_rule.limit);
  switch (w.window_rule.kind) {
    case "tailUnits":
      return t("memory.rule.tailUnits", { l });
    case "newestRows":
      return t("memory.rule.newestRows", { l });
    default:
      return t("memory.rule.wholeEntries", { l });
  }
}

export function WindowBanner({ w, total }: { w: WindowDto; total: number }) {
  const { t, num } = useI18n();
  if (total === 0) return null;
  const outside = w.outside_entries > 0;
  return (
    <div className={outside ? "banner banner-warn" : "banner banner-ok"} data-testid="window-banner" role="status">
      <Icon name={outside ? "scissors" : "check"} />
      <div>
        <strong>
          {outside
            ? t("memory.banner", { n: num(w.outside_entries), m: num(w.outside_chars), l: num(w.limit_chars) })
            : t("memory.bannerAllIn", { n: num(w.in_window_entries), m: num(w.in_window_chars), l: num(w.limit_chars) })}
        </strong>
        {outside ? <span className="banner-sub"> {t("memory.bannerIn", { n: num(w.in_window_entries), m: num(w.in_window_chars) })}</span> : null}
        {w.newest_cut ? <div className="banner-sub">{t("memory.bannerNewestCut", { l: num(w.limit_chars) })}</div> : null}
        {w.partial_kept != null && !w.newest_cut ? (
          <div className="banner-sub" data-testid="window-partial">
            {t("memory.bannerPartial", { n: num(w.first_in_window + 1), m: num([...w.partial_kept].length) })}
          </div>
        ) : null}
        <div className="banner-sub" data-testid="window-rule" data-rule={w.window_rule.kind}>
          {windowRuleText(w, t, num)}
        </div>
      </div>
    </div>
  );
}
