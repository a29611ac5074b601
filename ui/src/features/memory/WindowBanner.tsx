import type { WindowDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { useI18n } from "../../i18n";

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
      </div>
    </div>
  );
}
