import type { ReactNode } from "react";

import type { AgentDetail } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { Markdown } from "../../components/Markdown";
import { Empty, Loadable } from "../../components/States";
import { WarningBadge, WarningList } from "../../components/Warnings";
import { useI18n } from "../../i18n";
import { useAgent, useFiles } from "../../queries/hooks";
import { href } from "../../router";

export function OverviewTab({ name }: { name: string }) {
  const q = useAgent(name);
  return (
    <Loadable query={q} rows={10}>
      {(a) => <Overview a={a} />}
    </Loadable>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Overview({ a }: { a: AgentDetail }) {
  const { t } = useI18n();
  const files = useFiles();
  const none = <span className="muted">{t("common.none")}</span>;
  const s = a.summary;
  return (
    <div className="overview">
      <WarningList warnings={s.warnings} testId="overview-warnings" />
      {!s.has_agent_md ? <div className="banner banner-warn">{t("overview.noAgentMd")}</div> : null}
      <div className="overview-grid">
        <section className="card">
          <h2>{t("overview.frontMatter")}</h2>
          <dl className="fields" data-testid="front-matter">
            <Field label={t("overview.description")}>{s.description ?? none}</Field>
            <Field label={t("overview.identity")}>
              {a.identity_name || a.identity_prompt ? (
                <>
                  {a.identity_name ? <strong>{a.identity_name}</strong> : null} {a.identity_prompt ? <span>{a.identity_prompt}</span> : null}
                </>
              ) : (
                none
              )}
            </Field>
            <Field label={t("overview.provider")}>{s.provider ? <code>{s.provider}</code> : none}</Field>
            <Field label={t("overview.model")}>{s.model ? <code>{s.model}</code> : none}</Field>
            <Field label={t("overview.temperature")}>{a.temperature ?? none}</Field>
            <Field label={t("overview.tools")}>
              {s.tools.length ? (
                <span className="chips">
                  {s.tools.map((x) => (
                    <span className="chip" key={x}>
                      {x}
                    </span>
                  ))}
                </span>
              ) : (
                none
              )}
            </Field>
            <Field label={t("overview.bootstrap")}>{a.bootstrap.length ? a.bootstrap.join(", ") : none}</Field>
            <Field label={t("overview.maxHistory")}>{a.max_history_turns}</Field>
            <Field label={t("overview.schedules")}>{a.schedules_yaml ? <pre className="yaml">{a.schedules_yaml}</pre> : none}</Field>
            <Field label={t("overview.channels")}>{a.channels_yaml ? <pre className="yaml">{a.channels_yaml}</pre> : none}</Field>
            <Field label={t("overview.dir")}>
              <code>{a.dir}</code>
            </Field>
          </dl>
          <details className="raw-fm">
            <summary>{t("overview.rawFrontMatter")}</summary>
            <pre className="yaml" data-testid="front-matter-yaml">
              {a.front_matter_yaml || t("common.none")}
            </pre>
          </details>
        </section>
        <div className="overview-side">
          <section className="card">
            <h2>{t("overview.skills")}</h2>
            {a.skills.length === 0 ? (
              <Empty>{t("overview.noSkills")}</Empty>
            ) : (
              <ul className="list" data-testid="skills">
                {a.skills.map((sk) => (
                  <li key={sk.name} className={sk.warnings.length ? "has-warnings" : undefined}>
                    <code>{sk.name}</code>
                    <span className="muted">{sk.description ?? ""}</span>
                    <WarningBadge warnings={sk.warnings} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section className="card">
            <h2>{t("overview.bootstrapFiles")}</h2>
            {a.bootstrap.length === 0 ? (
              <Empty>{t("common.none")}</Empty>
            ) : (
              <ul className="list">
                {a.bootstrap.map((b) => {
                  const f = files.data?.find((x) => x.name === b);
                  return (
                    <li key={b}>
                      <Icon name="files" size={13} />
                      <a href={href({ page: "files", name: b })}>{b}</a>
                      {f && !f.exists ? <span className="tag tag-warn">{t("overview.missing")}</span> : null}
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
        </div>
      </div>
      <section className="card">
        <h2>{t("overview.body")}</h2>
        {a.body.trim() ? <Markdown source={a.body} testId="agent-body" /> : <Empty>{t("overview.noBody")}</Empty>}
      </section>
    </div>
  );
}
