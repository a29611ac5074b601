// The dashboard's card: how many superseded pairs each agent has, each count leading to that
// agent's review queue.
import { Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { href } from "../../router";
import "./superseded.css";

export function SupersededCard() {
  const { t, num } = useI18n();
  const q = useOp("superseded_counts", {});
  return (
    <section className="card superseded-card" aria-labelledby="superseded-card-title" data-testid="superseded-card">
      <h2 id="superseded-card-title">{t("superseded.card.title")}</h2>
      <Loadable query={q} rows={3}>
        {(rows) => {
          const agents = rows.filter((r) => r.agent !== null && r.pairs > 0);
          if (agents.length === 0) return <p className="muted">{t("superseded.card.empty")}</p>;
          return (
            <ul className="superseded-counts">
              {agents.map((r) => (
                <li key={r.agent}>
                  <a href={href({ page: "agent", name: r.agent!, tab: "superseded" })} title={t("superseded.card.open", { agent: r.agent! })} data-testid={`superseded-count-${r.agent}`}>
                    <span>{r.agent}</span>
                    <span className="superseded-badge">{t("superseded.count", { n: num(r.pairs) })}</span>
                  </a>
                </li>
              ))}
            </ul>
          );
        }}
      </Loadable>
    </section>
  );
}
