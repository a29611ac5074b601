// What a finding of the poisoning check shows besides its reason: how much it weighs and why
// (where the entry came from, as the console found it), and where in the text the instruction is,
// hidden characters drawn as ⟨U+202E⟩ markers (the console writes the markers; this only sets them
// apart). And the group's filter by weight level. The console decides the signals, the weight and
// the level; the screen only shows them.
import type { FindingDto } from "../../backend/types";
import { useI18n, type MessageKey } from "../../i18n";

export type LevelFilter = "all" | "medium" | "high";

const LEVEL_KEYS: Record<string, MessageKey> = {
  high: "health.poisoning.level.high",
  medium: "health.poisoning.level.medium",
  low: "health.poisoning.level.low",
};

const ORIGIN_KEYS: Record<string, MessageKey> = {
  save_memory: "health.poisoning.origin.save_memory",
  footprint: "health.poisoning.origin.footprint",
  console: "health.poisoning.origin.console",
  summary: "health.poisoning.origin.summary",
  unknown: "health.poisoning.origin.unknown",
  unchecked: "health.poisoning.origin.unchecked",
};

const RANK: Record<string, number> = { low: 0, medium: 1, high: 2 };

/** Whether the filter lets the finding through (a finding without a level, from a console that
 * sends none, always passes). */
export function passes(filter: LevelFilter, f: FindingDto): boolean {
  if (filter === "all") return true;
  const rank = RANK[f.params?.level ?? ""];
  return rank === undefined || rank >= RANK[filter]!;
}

/** A text with the console's ⟨U+XXXX⟩ markers set apart. */
export function Marked({ text }: { text: string }) {
  const parts = text.split(/(⟨U\+[0-9A-F]{4,6}⟩)/);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <mark key={i} className="health-hidden-char" data-testid="hidden-char">
            {p}
          </mark>
        ) : (
          p
        ),
      )}
    </>
  );
}

export function PoisoningDetails({ finding }: { finding: FindingDto }) {
  const { t, num } = useI18n();
  const p = finding.params ?? {};
  const level = p.level && LEVEL_KEYS[p.level] ? p.level : null;
  const weight = p.weight !== undefined && /^\d+$/.test(p.weight) ? Number(p.weight) : null;
  const origin = p.origin ? ORIGIN_KEYS[p.origin] : undefined;
  // The console says whether the channel was an outside one (and weighed the finding up for it).
  const outside = p.outside === "true";
  return (
    <div className="health-poisoning" data-testid="poisoning-details">
      <p className="health-poisoning-meta small">
        {level && weight !== null ? (
          <span className={`health-level health-level-${level}`} data-testid="poisoning-level" data-level={level}>
            {t("health.poisoning.weight", { level: t(LEVEL_KEYS[level]!), n: num(weight) })}
          </span>
        ) : null}{" "}
        {origin ? (
          <span className="muted" data-testid="poisoning-origin" data-origin={p.origin}>
            {t(origin)}
            {p.channel ? ` · ${t("health.poisoning.channel", { channel: p.channel })}` : ""}
            {outside ? ` · ${t("health.poisoning.outside")}` : ""}
          </span>
        ) : null}
      </p>
      {p.excerpt ? (
        <p className="health-poisoning-excerpt" data-testid="poisoning-excerpt">
          <span className="muted small">{t("health.poisoning.excerpt")}</span>{" "}
          <code>
            <Marked text={p.excerpt} />
          </code>
          {p.excerpt.includes("⟨U+") ? <span className="muted small"> {t("health.poisoning.hiddenNote")}</span> : null}
        </p>
      ) : null}
    </div>
  );
}

/** The group's filter: all findings, medium and high, or high only (radio buttons: arrow keys
 * move between them). */
export function LevelFilterBar({ value, onChange, hidden }: { value: LevelFilter; onChange: (v: LevelFilter) => void; hidden: number }) {
  const { t, num } = useI18n();
  const options: [LevelFilter, MessageKey][] = [
    ["all", "health.poisoning.filter.all"],
    ["medium", "health.poisoning.filter.medium"],
    ["high", "health.poisoning.filter.high"],
  ];
  return (
    <fieldset className="health-level-filter" data-testid="poisoning-filter">
      <legend className="muted small">{t("health.poisoning.filter")}</legend>
      {options.map(([v, key]) => (
        <label key={v} className="small">
          <input type="radio" name="poisoning-level" value={v} checked={value === v} onChange={() => onChange(v)} data-testid={`poisoning-filter-${v}`} /> {t(key)}
        </label>
      ))}
      {hidden > 0 ? (
        <span className="muted small" data-testid="poisoning-filtered">
          {t("health.poisoning.filtered", { n: num(hidden) })}
        </span>
      ) : null}
    </fieldset>
  );
}
