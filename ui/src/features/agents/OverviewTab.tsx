import { useMutation } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";

import { BackendError, useBackend } from "../../backend";
import { Dialog } from "../../components/Dialog";

import type { AgentDetail } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { Markdown } from "../../components/Markdown";
import { Empty, Loadable } from "../../components/States";
import { WarningBadge, WarningList } from "../../components/Warnings";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { href, navigate } from "../../router";
import { usePromptComposition } from "../charts/hooks";
import { CompositionChart, GrowthChart, ReachChart } from "../charts/lazy";
import { AgentEditor } from "./AgentEditor";
import { announceArchived } from "./ArchiveToast";
import { useInvalidateAgents } from "./manage";
import { SkillsPicker } from "./SkillsPicker";
import { RuntimeBanner } from "./RuntimeLoad";

export function OverviewTab({ name }: { name: string }) {
  const q = useOp("get_agent", { name });
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

/** Archive with a confirmation; the agents list then shows the Undo toast. */
function ArchiveButton({ name }: { name: string }) {
  const { t } = useI18n();
  const b = useBackend();
  const invalidate = useInvalidateAgents();
  const [asking, setAsking] = useState(false);
  const archive = useMutation({
    mutationFn: () => b.call("archive_agent", { name }),
    onSuccess: async (r) => {
      setAsking(false);
      announceArchived(r);
      navigate({ page: "agents" });
      await invalidate();
    },
  });
  return (
    <>
      <button type="button" className="btn btn-danger" onClick={() => setAsking(true)} data-testid="agent-archive">
        <Icon name="trash" size={13} /> {t("archive.button")}
      </button>
      {asking ? (
        <Dialog
          title={t("archive.confirmTitle", { name })}
          onEscape={() => setAsking(false)}
          testId="archive-confirm"
          footer={
            <>
              <button type="button" className="btn" onClick={() => setAsking(false)}>
                {t("edit.cancel")}
              </button>
              <button type="button" className="btn btn-danger" disabled={archive.isPending} onClick={() => archive.mutate()} data-autofocus data-testid="archive-confirm-ok">
                {t("archive.button")}
              </button>
            </>
          }
        >
          <p>{t("archive.confirmText", { name })}</p>
          {archive.error ? (
            <div className="inline-error" role="alert" data-testid="archive-error">
              {BackendError.from(archive.error).message}
            </div>
          ) : null}
        </Dialog>
      ) : null}
    </>
  );
}

function Overview({ a }: { a: AgentDetail }) {
  const { t } = useI18n();
  const files = useOp("bootstrap_files", {});
  const [editing, setEditing] = useState(false);
  const [pickingSkills, setPickingSkills] = useState(false);
  const none = <span className="muted">{t("common.none")}</span>;
  const s = a.summary;
  return (
    <div className="overview">
      <div className="toolbar overview-actions">
        <button type="button" className={editing ? "btn btn-primary" : "btn"} aria-pressed={editing} onClick={() => setEditing(!editing)} data-testid="agent-edit">
          <Icon name="pencil" size={13} /> {t("edit.button")}
        </button>
        <span className="spacer" />
        <ArchiveButton name={s.name} />
      </div>
      {editing ? <AgentEditor a={a} onDone={() => setEditing(false)} /> : null}
      <WarningList warnings={s.warnings} testId="overview-warnings" />
      <RuntimeBanner runtime={s.runtime} />
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
          <RawFrontMatter a={a} />
        </section>
        <div className="overview-side">
          <section className="card">
            <div className="part-head">
              <h2>{t("overview.skills")}</h2>
              <span className="spacer" />
              {!pickingSkills ? (
                <button type="button" className="btn btn-small" onClick={() => setPickingSkills(true)} data-testid="skills-edit">
                  {t("skills.edit")}
                </button>
              ) : null}
            </div>
            {pickingSkills ? <SkillsPicker a={a} onClose={() => setPickingSkills(false)} /> : null}
            {pickingSkills ? null : a.skills.length === 0 ? (
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
      <Charts name={s.name} />
      <section className="card">
        <h2>{t("overview.body")}</h2>
        {a.body.trim() ? <Markdown source={a.body} testId="agent-body" /> : <Empty>{t("overview.noBody")}</Empty>}
      </section>
    </div>
  );
}

/** All front matter as YAML; when AGENT.md has a front matter that does not parse (the console
 * sends none), the file as written and why it could not be read (agent_file). */
function RawFrontMatter({ a }: { a: AgentDetail }) {
  const { t } = useI18n();
  const unparsed = a.front_matter_yaml === "" && a.summary.has_agent_md;
  const file = useOp("agent_file", { name: a.summary.name }, { enabled: unparsed });
  const errors = unparsed && file.data ? file.data.errors : [];
  return (
    <details className="raw-fm" data-testid="raw-front-matter">
      <summary>
        {t("overview.rawFrontMatter")}
        {errors.length ? (
          <>
            {" "}
            <span className="tag tag-warn">{t("overview.rawUnparsedTag")}</span>
          </>
        ) : null}
      </summary>
      {errors.length && file.data ? (
        <>
          <ul className="banner banner-err field-errors" data-testid="front-matter-errors">
            {errors.map((e, i) => (
              <li key={i}>{e.key ? `${e.key}: ${e.message}` : e.message}</li>
            ))}
          </ul>
          <p className="muted">{t("overview.rawUnparsed")}</p>
          <pre className="yaml" data-testid="front-matter-yaml">
            {file.data.text}
          </pre>
        </>
      ) : (
        <pre className="yaml" data-testid="front-matter-yaml">
          {a.front_matter_yaml || t("common.none")}
        </pre>
      )}
    </details>
  );
}

/** The agent's memory over time and its prompt per session, drawn. */
function Charts({ name }: { name: string }) {
  const { t } = useI18n();
  const stats = useOp("memory_stats", { agent: name });
  const composition = usePromptComposition(name);
  return (
    <section className="card" aria-labelledby="overview-charts-title" data-testid="overview-charts">
      <h2 id="overview-charts-title">{t("charts.title")}</h2>
      <div className="charts-grid">
        <Loadable query={stats} rows={5}>
          {(st) => (
            <>
              <GrowthChart days={st.days} />
              <ReachChart reach={st.reach_back} />
            </>
          )}
        </Loadable>
        <Loadable query={composition} rows={5}>
          {(rows) => <CompositionChart sessions={rows} />}
        </Loadable>
      </div>
    </section>
  );
}
